import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';

/**
 * Browser notifications for new requests, offered once and quietly. The desktop shell notifies
 * natively, so there (and where the API is missing) this renders nothing.
 */
export function NotificationToggle() {
  const state = useCockpit((s) => s.review.notifications);
  const { enableNotifications } = useCockpitActions();
  if (state === 'default') {
    return (
      <button type="button" className="button button--quiet" onClick={enableNotifications}>
        Enable notifications
      </button>
    );
  }
  if (state === 'denied') return <p className="review-note">Notifications are blocked in this browser&apos;s site settings.</p>;
  return null;
}
