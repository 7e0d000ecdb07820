import { vi } from 'vitest';
import type { NotificationsPort } from '../lib/notifications.js';

/** Browser notifications as a test sees them: what was shown, and a permission the person grants on request. */
export function fakeNotifications(permission: NotificationPermission = 'granted') {
  const port = {
    current: permission,
    shown: [] as { title: string; body: string; tag: string; onClick?: () => void }[],
    permission: () => port.current,
    request: vi.fn(async () => {
      port.current = 'granted';
      return port.current;
    }),
    show: (title: string, body: string, tag: string, onClick?: () => void) => port.shown.push({ title, body, tag, onClick }),
  };
  return port satisfies NotificationsPort;
}
