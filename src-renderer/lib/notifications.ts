import type { PendingApproval } from '../../src-shared/schemas/approval.js';
import { riskLabel } from '../store/approval-queue.js';

/**
 * Browser notifications for new approval requests. Inside the desktop shell (window.silas) the
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

/** The notification for a newly arrived card. */
export function notificationText(card: Pick<PendingApproval, 'tool' | 'server' | 'reason' | 'policyName' | 'risk'>): { title: string; body: string } {
  return {
    title: `Approve ${card.tool} on ${card.server}?`,
    body: `${riskLabel(card.risk)}. ${card.reason || `Policy ${card.policyName} asks before this call.`}`,
  };
}
