import type { Notification } from 'electron';
import type { NotificationRequest, Notifier } from '../app/types.js';
import type { ShellLogger } from './logger.js';

export interface ElectronNotifierOptions {
  Notification: typeof Notification;
  /** Brings the cockpit to front (creating the window if it was closed). */
  openCockpit(): void;
  logger: ShellLogger;
}

/** Native notifications for the runtime; pressing one opens the cockpit where the decision waits. */
export class ElectronNotifier implements Notifier {
  // Electron drops click handlers of notifications that were garbage collected while still on
  // screen, so every shown notification is held until it is clicked or closed.
  private readonly live = new Set<Notification>();

  constructor(private readonly options: ElectronNotifierOptions) {}

  notify(request: NotificationRequest): void {
    const { Notification: NotificationClass, logger } = this.options;
    if (!NotificationClass.isSupported()) {
      logger.info(`notifications are not supported on this desktop; not shown: ${request.title} — ${request.body}`);
      return;
    }
    const notification = new NotificationClass({
      title: request.title,
      body: request.body,
      ...(request.urgency ? { urgency: request.urgency } : {}),
    });
    this.live.add(notification);
    const release = (): void => {
      this.live.delete(notification);
    };
    notification.on('click', () => {
      release();
      this.options.openCockpit();
    });
    notification.on('close', release);
    notification.on('failed', (_event, error) => {
      release();
      logger.warn(`notification "${request.title}" could not be shown: ${error}`);
    });
    notification.show();
  }

  /** Notifications still on screen; for tests and shutdown diagnostics. */
  get pending(): number {
    return this.live.size;
  }
}
