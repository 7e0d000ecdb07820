import { describe, expect, it, vi } from 'vitest';
import { pendingApproval } from '../test/approval-fixtures.js';
import { browserNotifications, notificationText } from './notifications.js';
import type { SilasBridge } from '../../src-shared/contract/index.js';

class FakeNotification {
  static permission: NotificationPermission = 'granted';
  static requestPermission = vi.fn(async () => 'denied' as NotificationPermission);
  static created: FakeNotification[] = [];
  onclick: (() => void) | null = null;
  closed = false;
  constructor(
    readonly title: string,
    readonly options: NotificationOptions,
  ) {
    FakeNotification.created.push(this);
  }
  close() {
    this.closed = true;
  }
}

const api = FakeNotification as unknown as typeof Notification;

describe('browserNotifications', () => {
  it('is unavailable inside the desktop shell, which notifies natively', () => {
    expect(browserNotifications({ silas: {} as SilasBridge, focus: () => {}, Notification: api })).toBeNull();
  });

  it('is unavailable without the Notification API', () => {
    expect(browserNotifications({ silas: undefined, focus: () => {} })).toBeNull();
  });

  it('reads and requests permission and shows a notification that focuses the cockpit', async () => {
    const focus = vi.fn();
    const onClick = vi.fn();
    const port = browserNotifications({ silas: undefined, focus, Notification: api })!;
    expect(port.permission()).toBe('granted');
    expect(await port.request()).toBe('denied');
    port.show('Approve x on y?', 'Medium risk.', 'silas-approval-1', onClick);
    const shown = FakeNotification.created[0]!;
    expect([shown.title, shown.options]).toEqual(['Approve x on y?', { body: 'Medium risk.', tag: 'silas-approval-1' }]);
    shown.onclick?.();
    expect(focus).toHaveBeenCalled();
    expect(onClick).toHaveBeenCalled();
    expect(shown.closed).toBe(true);
  });
});

describe('notificationText', () => {
  it('asks about the tool and server and says the risk and reason', () => {
    expect(notificationText(pendingApproval(1, { tool: 'send_email', server: 'mail', risk: 'high' }))).toEqual({
      title: 'Approve send_email on mail?',
      body: 'High risk. Reading files outside the project asks first.',
    });
  });

  it('falls back to the policy name when there is no reason', () => {
    expect(notificationText(pendingApproval(1, { reason: '' })).body).toBe('Medium risk. Policy workstation asks before this call.');
  });
});
