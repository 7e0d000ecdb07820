import { describe, expect, it, vi } from 'vitest';
import { memoryPromotionCard, planCard, toolCallCard, toolChangeCard } from '../testing/review-fixtures.js';
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
  it('asks about the tool and server and says the risk and the rationale', () => {
    expect(notificationText(toolCallCard(1, { riskLevel: 'high', details: { tool: 'send_email', server: 'mail' } }))).toEqual({
      title: 'Approve send_email on mail?',
      body: 'High risk. Reading files outside the project asks first.',
    });
  });

  it('names a plan by its title and adds the 8 hash characters silas run shows', () => {
    expect(notificationText(planCard(1, { riskLevel: 'high', rationale: 'A check needs the network.' }))).toEqual({
      title: 'Approve plan "Fix the timezone bug 1"?',
      body: 'High risk. A check needs the network. Plan 1a2b3c4d.',
    });
  });

  it('asks to accept a changed tool definition', () => {
    expect(notificationText(toolChangeCard(1, { riskLevel: 'irreversible', rationale: 'web announced a new fetch.' }))).toEqual({
      title: 'Accept the changed definition of fetch_1 on web?',
      body: 'Irreversible. web announced a new fetch.',
    });
  });

  it('asks to verify a memory in the words of its intent', () => {
    expect(notificationText(memoryPromotionCard(1))).toEqual({
      title: 'Verify the memory "The owner indents code with tabs, never spaces (1)"?',
      body: 'Low risk. A verified memory is recalled as confirmed by you, and Silas can no longer change or forget it on its own.',
    });
  });

  it('says what the card\'s kind wrote for its notification, as the desktop shell does', () => {
    const notification = { title: 'Approve write_file on files?', body: 'Medium risk. Rule spec.tool_rules[0] "ask: write_file" of policy "p" asks you before every write_file call.' };
    expect(notificationText(toolCallCard(1, { notification }))).toEqual(notification);
  });

  it('leaves out an empty rationale without a dangling space', () => {
    expect(notificationText(toolCallCard(1, { rationale: '' })).body).toBe('Medium risk.');
    expect(notificationText(planCard(1, { rationale: '' })).body).toBe('Medium risk. Plan 1a2b3c4d.');
  });
});
