import type { DecisionCard } from '../../src-shared/schemas/review.js';
import { riskLabel, shortPlanHash } from '../store/review-queue.js';

/**
 * Browser notifications for new decisions waiting on the Review page. Inside the desktop shell (window.silas) the
 * main process already raises native notifications, so the cockpit stays silent there.
 */
export interface NotificationsPort {
  permission(): NotificationPermission;
  request(): Promise<NotificationPermission>;
  /** `onClick` runs after the window is focused, e.g. to open the Review page. */
  show(title: string, body: string, tag: string, onClick?: () => void): void;
}

type NotificationWindow = Pick<Window, 'silas' | 'focus'> & { Notification?: typeof Notification };

export function browserNotifications(win: NotificationWindow): NotificationsPort | null {
  const Api = win.Notification;
  if (win.silas || typeof Api !== 'function') return null;
  return {
    permission: () => Api.permission,
    request: async () => {
      try {
        return await Api.requestPermission();
      } catch {
        return Api.permission;
      }
    },
    show: (title, body, tag, onClick) => {
      try {
        const notification = new Api(title, { body, tag });
        notification.onclick = () => {
          win.focus();
          onClick?.();
          notification.close();
        };
      } catch (error) {
        // Some browsers only allow notifications from a service worker; the Review page still shows the card.
        console.warn('silas cockpit: could not show a notification', error);
      }
    },
  };
}

/**
 * The notification for a newly arrived card: the words its kind wrote on it, which the desktop
 * shell shows too. A card without them (an older runtime) is worded here the same way: a
 * question naming what is decided, then the risk and the runtime's rationale; a plan's also
 * carries the 8 hash characters `silas run` shows, so the person can tell it is the same plan.
 */
export function notificationText(card: DecisionCard): { title: string; body: string } {
  if (card.notification) return { title: card.notification.title, body: card.notification.body };
  const body = `${riskLabel(card.riskLevel)}.${card.rationale ? ` ${card.rationale}` : ''}`;
  switch (card.kind) {
    case 'tool_call':
      return { title: `Approve ${card.details.tool} on ${card.details.server}?`, body };
    case 'plan':
      return { title: `Approve plan "${card.details.title}"?`, body: `${body} Plan ${shortPlanHash(card.details.planHash)}.` };
    case 'tool_change':
      return { title: `Accept the changed definition of ${card.details.tool} on ${card.details.server}?`, body };
    case 'ilp_slice':
      return { title: `Deploy the learned slice "${card.details.title}"?`, body };
    case 'memory_promotion':
      // The intent names the memory by an excerpt the runtime made safe to show.
      return { title: `${card.intent}?`, body };
  }
}
