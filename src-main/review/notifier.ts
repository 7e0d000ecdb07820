/** A native notification asking the person to look at Review (the desktop shell shows it; headless logs it). */
export interface NotificationRequest {
  title: string;
  body: string;
  /** Shown as a hint of how pressing it helps; the shell opens the cockpit on click. */
  urgency?: 'normal' | 'critical';
}

export interface Notifier {
  notify(request: NotificationRequest): void;
}
