import { describe, expect, it } from 'vitest';
import type { DecisionQueue } from '../app/types.js';
import { createFakeElectron, memoryLogger } from './testing/fake-electron.js';
import { createCockpitTray, trayTooltip } from './tray.js';

class FakeQueue implements DecisionQueue {
  pending = 0;
  paused = false;
  readonly listeners = new Set<() => void>();
  pendingCount(): number {
    return this.pending;
  }
  isPaused(): boolean {
    return this.paused;
  }
  setPaused(paused: boolean): void {
    this.paused = paused;
    this.changed();
  }
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function setup(pending = 0) {
  const fake = createFakeElectron();
  const queue = new FakeQueue();
  queue.pending = pending;
  const calls: string[] = [];
  const tray = createCockpitTray({
    Tray: fake.electron.Tray,
    Menu: fake.electron.Menu,
    nativeImage: fake.electron.nativeImage,
    iconPath: '/opt/silas/resources/icons/tray.png',
    decisions: queue,
    openCockpit: () => calls.push('open'),
    quit: () => calls.push('quit'),
    logger: memoryLogger(),
  });
  const fakeTray = fake.trays[0]!;
  return { fake, queue, calls, tray, fakeTray };
}

describe('tray', () => {
  it('uses the tray icon', () => {
    const { fakeTray } = setup();
    expect(fakeTray.image).toEqual(expect.objectContaining({ path: '/opt/silas/resources/icons/tray.png' }));
  });

  it('has Open cockpit, Pause approvals, a separator and Quit', () => {
    const { fakeTray } = setup();
    const template = fakeTray.menu!.template;
    expect(template.map((entry) => entry.label ?? entry.type)).toEqual(['Open cockpit', 'Pause approvals', 'separator', 'Quit']);
    expect(template[1]).toEqual(expect.objectContaining({ type: 'checkbox', checked: false }));
  });

  it('shows the pending count in the tooltip and follows the queue', () => {
    const { fakeTray, queue } = setup(3);
    expect(fakeTray.tooltip).toBe('Silas — 3 pending decisions');
    queue.pending = 1;
    queue.changed();
    expect(fakeTray.tooltip).toBe('Silas — 1 pending decision');
    expect(trayTooltip(0)).toBe('Silas — 0 pending decisions');
  });

  it('"Pause approvals" toggles the queue and the checkbox follows', () => {
    const { queue, fakeTray } = setup();
    fakeTray.click('pause');
    expect(queue.paused).toBe(true);
    expect(fakeTray.item('pause').checked).toBe(true);
    fakeTray.click('pause');
    expect(queue.paused).toBe(false);
    expect(fakeTray.item('pause').checked).toBe(false);
  });

  it('shows a pause made elsewhere (e.g. from the cockpit)', () => {
    const { queue, fakeTray } = setup();
    queue.setPaused(true);
    expect(fakeTray.item('pause').checked).toBe(true);
  });

  it('opens the cockpit from the menu and the icon, and quits from the menu', () => {
    const { calls, fakeTray } = setup();
    fakeTray.click('open');
    fakeTray.emit('click');
    fakeTray.click('quit');
    expect(calls).toEqual(['open', 'open', 'quit']);
  });

  it('stops following the queue and removes the icon when disposed', () => {
    const { tray, queue, fakeTray } = setup();
    tray.dispose();
    expect(fakeTray.destroyed).toBe(true);
    expect(queue.listeners.size).toBe(0);
    tray.refresh();
    tray.dispose();
  });
});
