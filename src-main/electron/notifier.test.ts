import { describe, expect, it } from 'vitest';
import { ElectronNotifier } from './notifier.js';
import { createFakeElectron, fakeEvent, memoryLogger } from './testing/fake-electron.js';

function setup(supported = true) {
  const fake = createFakeElectron({ notificationsSupported: supported });
  const logger = memoryLogger();
  let opened = 0;
  const notifier = new ElectronNotifier({ Notification: fake.electron.Notification, openCockpit: () => void (opened += 1), logger });
  return { fake, logger, notifier, opened: () => opened };
}

describe('ElectronNotifier', () => {
  it('shows new Notification({ title, body })', () => {
    const { fake, notifier } = setup();
    notifier.notify({ title: 'Approval needed', body: 'cursor wants to run write_file' });
    expect(fake.notifications).toHaveLength(1);
    expect(fake.notifications[0]!.options).toEqual({ title: 'Approval needed', body: 'cursor wants to run write_file' });
    expect(fake.notifications[0]!.shown).toBe(true);
  });

  it('passes urgency through when given', () => {
    const { fake, notifier } = setup();
    notifier.notify({ title: 't', body: 'b', urgency: 'critical' });
    expect(fake.notifications[0]!.options).toEqual({ title: 't', body: 'b', urgency: 'critical' });
  });

  it('opens the cockpit when clicked and then lets the notification go', () => {
    const { fake, notifier, opened } = setup();
    notifier.notify({ title: 't', body: 'b' });
    expect(notifier.pending).toBe(1);
    fake.notifications[0]!.emit('click', fakeEvent());
    expect(opened()).toBe(1);
    expect(notifier.pending).toBe(0);
  });

  it('releases closed and failed notifications', () => {
    const { fake, notifier, logger } = setup();
    notifier.notify({ title: 'one', body: 'b' });
    notifier.notify({ title: 'two', body: 'b' });
    fake.notifications[0]!.close();
    fake.notifications[1]!.emit('failed', fakeEvent(), 'no notification server');
    expect(notifier.pending).toBe(0);
    expect(logger.lines.some((line) => line.message.includes('no notification server'))).toBe(true);
  });

  it('is a logged no-op where notifications are unsupported', () => {
    const { fake, notifier, logger } = setup(false);
    notifier.notify({ title: 'Approval needed', body: 'x' });
    expect(fake.notifications).toHaveLength(0);
    expect(logger.lines).toEqual([{ level: 'info', message: 'notifications are not supported on this desktop; not shown: Approval needed — x' }]);
  });
});
