import { describe, expect, it } from 'vitest';
import { createCockpitStore } from '../store/cockpit-store.js';
import { pendingApproval } from '../test/approval-fixtures.js';
import { FakeTransport, settle } from '../test/fake-transport.js';
import { fakeNotifications } from '../test/fake-notifications.js';
import { connectCockpit } from './cockpit.js';

function runtimeWithQueue(queue = { pending: [pendingApproval(2), pendingApproval(1)], paused: false }): FakeTransport {
  return new FakeTransport().handle('approvals.list', () => ({ ok: true, value: queue }));
}

const ids = (cards: readonly { id: string }[]) => cards.map((card) => card.id);

describe('connectCockpit: approvals', () => {
  it('loads the queue with approvals.list on every (re)connect', async () => {
    const transport = runtimeWithQueue();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('approvals.list')).toEqual([{}]);
    expect(ids(store.getState().approvals.pending)).toEqual(['approval-1', 'approval-2']);
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('approvals.list')).toHaveLength(2);
  });

  it('replaces the queue on approvals.changed and ignores malformed payloads', async () => {
    const transport = runtimeWithQueue();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    transport.emit('approvals.changed', { pending: [pendingApproval(5), pendingApproval(3)], paused: true });
    expect(ids(store.getState().approvals.pending)).toEqual(['approval-3', 'approval-5']);
    expect(store.getState().approvals.paused).toBe(true);
    transport.emit('approvals.changed', { pending: [{ id: 'broken' }], paused: false });
    expect(store.getState().approvals.pending).toHaveLength(2);
  });

  it('sends approvals.decide with the id and decision, one at a time', async () => {
    let answer: (value: unknown) => void = () => {};
    const transport = runtimeWithQueue().handle(
      'approvals.decide',
      (args) =>
        new Promise((resolve) => {
          answer = () => resolve({ ok: true, value: { id: (args as { id: string }).id, outcome: 'approved' } });
        }),
    );
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    actions.decideApproval('approval-1', 'allow_once');
    actions.decideApproval('approval-2', 'deny');
    expect(transport.callsTo('approvals.decide')).toEqual([{ id: 'approval-1', decision: 'allow_once' }]);
    expect(store.getState().approvals.deciding).toBe('approval-1');
    answer(undefined);
    await settle();
    expect(store.getState().approvals.deciding).toBeNull();
    expect(ids(store.getState().approvals.pending)).toEqual(['approval-2']);
    actions.decideApproval('approval-2', 'always_allow');
    expect(transport.callsTo('approvals.decide')).toEqual([
      { id: 'approval-1', decision: 'allow_once' },
      { id: 'approval-2', decision: 'always_allow' },
    ]);
  });

  it('keeps the runtime message of a failed decision', async () => {
    const transport = runtimeWithQueue().handle('approvals.decide', () => ({
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'no pending approval approval-1; it was already decided or it expired' },
    }));
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    actions.decideApproval('approval-1', 'deny');
    await settle();
    expect(store.getState().approvals.decideError).toEqual({
      id: 'approval-1',
      message: 'no pending approval approval-1; it was already decided or it expired (E_INVALID_ARGS)',
    });
    expect(store.getState().approvals.deciding).toBeNull();
  });

  it('notifies only for cards that arrive after the first queue, once each', async () => {
    const transport = runtimeWithQueue();
    const notifications = fakeNotifications('granted');
    const store = createCockpitStore();
    connectCockpit({ transport, store, notifications, window });
    transport.setState('connected');
    await settle();
    expect(notifications.shown).toEqual([]);

    transport.emit('approvals.changed', { pending: [pendingApproval(1), pendingApproval(2), pendingApproval(3, { tool: 'write_file', risk: 'high' })], paused: false });
    expect(notifications.shown.map((n) => [n.title, n.tag])).toEqual([['Approve write_file on filesystem?', 'silas-approval-approval-3']]);
    expect(notifications.shown[0]!.body).toBe('High risk. Reading files outside the project asks first.');

    transport.emit('approvals.changed', { pending: [pendingApproval(3, { tool: 'write_file', risk: 'high' })], paused: false });
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(notifications.shown).toHaveLength(1);

    window.history.replaceState(null, '', '/#/stream');
    notifications.shown[0]!.onClick?.();
    expect(store.getState().navigation.route).toBe('review');
  });

  it('stays silent without permission', async () => {
    const transport = runtimeWithQueue();
    const notifications = fakeNotifications('default');
    connectCockpit({ transport, store: createCockpitStore(), notifications });
    transport.setState('connected');
    await settle();
    transport.emit('approvals.changed', { pending: [pendingApproval(9)], paused: false });
    expect(notifications.shown).toEqual([]);
  });

  it('asks for permission only while it is undecided and records the answer', async () => {
    const notifications = fakeNotifications('default');
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport: new FakeTransport(), store, notifications });
    expect(store.getState().approvals.notifications).toBe('default');
    actions.enableNotifications();
    await settle();
    expect(notifications.request).toHaveBeenCalledTimes(1);
    expect(store.getState().approvals.notifications).toBe('granted');
    actions.enableNotifications();
    expect(notifications.request).toHaveBeenCalledTimes(1);
  });

  it('reports notifications as unsupported without a port (desktop shell)', () => {
    const store = createCockpitStore();
    connectCockpit({ transport: new FakeTransport(), store });
    expect(store.getState().approvals.notifications).toBe('unsupported');
  });
});
