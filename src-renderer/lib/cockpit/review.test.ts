import { describe, expect, it, vi } from 'vitest';
import type { DecisionCard } from '../../../src-shared/schemas/review.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { fakeNotifications } from '../../testing/fake-notifications.js';
import { heldDecisions, planCard, reviewDelta, toolCallCard, toolChangeCard } from '../../testing/review-fixtures.js';
import { connectCockpit } from './connect.js';

function runtimeWithQueue(cards: DecisionCard[] = [toolCallCard(2), planCard(1)], paused = false): FakeTransport {
  return new FakeTransport().handle('review.list', () => ({ ok: true, value: { cards, paused } }));
}


const ids = (cards: readonly { id: string }[]) => cards.map((card) => card.id);

describe('connectCockpit: review', () => {
  it('loads the queue with review.list on every (re)connect', async () => {
    const transport = runtimeWithQueue();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    expect(store.getState().review.status).toBe('loading');
    await settle();
    expect(transport.callsTo('review.list')).toEqual([{}]);
    expect(ids(store.getState().review.cards)).toEqual(['plan-1', 'tool_call-2']);
    expect(store.getState().review.status).toBe('ready');
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('review.list')).toHaveLength(2);
  });

  it('drops a review.list answer that belongs to a replaced connection', async () => {
    let answerFirst: () => void = () => {};
    let calls = 0;
    const transport = new FakeTransport().handle('review.list', () => {
      calls += 1;
      if (calls === 1) return new Promise((resolve) => (answerFirst = () => resolve({ ok: true, value: { cards: [planCard(1)], paused: false } })));
      return { ok: true, value: { cards: [planCard(2)], paused: false } };
    });
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    answerFirst();
    await settle();
    expect(ids(store.getState().review.cards)).toEqual(['plan-2']);
  });

  it('shows why the queue could not be loaded', async () => {
    const transport = new FakeTransport().handle('review.list', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'runtime gone' } }));
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    expect(store.getState().review).toMatchObject({ status: 'error', error: 'runtime gone (E_UNAVAILABLE)' });
  });

  it('refuses a review.list answer that breaks the contract, saying which field', async () => {
    const transport = runtimeWithQueue([{ ...toolCallCard(1), riskLevel: 'critical' as 'high' }]);
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    expect(store.getState().review.status).toBe('error');
    expect(store.getState().review.error).toMatch(/^review\.list: result\.cards\.0\.riskLevel: .*\(E_BAD_RESULT\)$/);
  });

  it('applies review.changed deltas in seq order and ignores invalid payloads', async () => {
    const transport = runtimeWithQueue([planCard(1), toolCallCard(2)]);
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    transport.emit('review.changed', reviewDelta(1, { added: [toolChangeCard(5), toolCallCard(3)], removed: ['plan-1'], paused: true }));
    expect(ids(store.getState().review.cards)).toEqual(['tool_call-2', 'tool_call-3', 'tool_change-5']);
    expect(store.getState().review).toMatchObject({ paused: true, seq: 1 });

    transport.emit('review.changed', { ...reviewDelta(2), added: [{ id: 'broken' }] });
    transport.emit('review.changed', reviewDelta(2, { added: [{ ...planCard(7), details: { ...planCard(7).details, planHash: 'not-a-hash' } }] }));
    transport.emit('review.changed', reviewDelta(2, { added: [{ ...toolCallCard(8), riskLevel: 'critical' as 'high' }] }));
    transport.emit('review.changed', reviewDelta(2, { added: [{ ...toolCallCard(8), kind: 'mystery' as 'tool_call' }] }));
    transport.emit('review.changed', reviewDelta(2, { added: [{ ...toolCallCard(8), actions: [] }] }));
    transport.emit('review.changed', null);
    transport.emit('review.changed', { cards: [], paused: false });
    // An old delta (already in what is held) changes nothing.
    transport.emit('review.changed', reviewDelta(1, { removed: ['tool_call-2'] }));
    expect(ids(store.getState().review.cards)).toEqual(['tool_call-2', 'tool_call-3', 'tool_change-5']);
    expect(transport.callsTo('review.list')).toHaveLength(1);

    transport.emit('review.changed', reviewDelta(2, { removed: ['tool_call-2', 'tool_call-3', 'tool_change-5'] }));
    expect(store.getState().review.cards).toEqual([]);
  });

  it('lists the queue again when a delta was missed (a gap in seq), never applying it over a stale copy', async () => {
    const transport = runtimeWithQueue([toolCallCard(1)]);
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    transport.handle('review.list', () => ({ ok: true, value: { cards: [toolCallCard(1), toolCallCard(2), toolCallCard(4)], paused: false, seq: 3, total: 3 } }));
    transport.emit('review.changed', reviewDelta(3, { added: [toolCallCard(4)] }));
    await settle();
    expect(transport.callsTo('review.list')).toHaveLength(2);
    expect(ids(store.getState().review.cards)).toEqual(['tool_call-1', 'tool_call-2', 'tool_call-4']);
    expect(store.getState().review.seq).toBe(3);
  });

  it('loads every page of a long queue', async () => {
    const cards = Array.from({ length: 5 }, (_, i) => toolCallCard(i + 1));
    const transport = new FakeTransport().handle('review.list', (args) => {
      const offset = (args as { offset?: number }).offset ?? 0;
      return { ok: true, value: { cards: cards.slice(offset, offset + 2), paused: false, seq: 9, total: 5 } };
    });
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await vi.waitFor(() => expect(store.getState().review.status).toBe('ready'));
    expect(ids(store.getState().review.cards)).toEqual(cards.map((c) => c.id));
    expect(transport.callsTo('review.list')).toEqual([{}, { offset: 2 }, { offset: 4 }]);
  });

  it('lists again when the queue changes between pages, so no card of a later page is lost', async () => {
    const cards = Array.from({ length: 5 }, (_, i) => toolCallCard(i + 1));
    let seq = 9;
    const transport = new FakeTransport().handle('review.list', (args) => {
      const offset = (args as { offset?: number }).offset ?? 0;
      // The first listing's second page comes after a change (seq 10); the second listing is stable.
      if (offset > 0 && seq === 9) seq = 10;
      return { ok: true, value: { cards: cards.slice(offset, offset + 2), paused: false, seq, total: 5 } };
    });
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await vi.waitFor(() => expect(store.getState().review.status).toBe('ready'));
    expect(ids(store.getState().review.cards)).toEqual(cards.map((c) => c.id));
    expect(store.getState().review.seq).toBe(10);
    expect(transport.callsTo('review.list')).toEqual([{}, { offset: 2 }, {}, { offset: 2 }, { offset: 4 }]);
  });

  it('sends review.decide with the id and choice, one decision at a time across every kind', async () => {
    const transport = runtimeWithQueue([toolCallCard(1), planCard(2), toolChangeCard(3)]);
    const answers = heldDecisions(transport);
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();

    actions.decide('tool_call-1', 'allow_once');
    actions.decide('plan-2', 'approve');
    actions.decide('tool_change-3', 'approve');
    expect(transport.callsTo('review.decide')).toEqual([{ id: 'tool_call-1', choice: 'allow_once' }]);
    expect(store.getState().review.deciding).toBe('tool_call-1');
    answers[0]!();
    await settle();
    expect(store.getState().review.deciding).toBeNull();
    expect(ids(store.getState().review.cards)).toEqual(['plan-2', 'tool_change-3']);

    actions.decide('plan-2', 'deny');
    actions.decide('tool_call-1', 'deny');
    expect(transport.callsTo('review.decide')).toHaveLength(2);
    answers[1]!();
    await settle();
    actions.decide('tool_change-3', 'keep_blocked');
    expect(transport.callsTo('review.decide')).toEqual([
      { id: 'tool_call-1', choice: 'allow_once' },
      { id: 'plan-2', choice: 'deny' },
      { id: 'tool_change-3', choice: 'keep_blocked' },
    ]);
  });

  it('keeps the runtime message of a failed decision, and the card', async () => {
    const transport = runtimeWithQueue().handle('review.decide', () => ({
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'no pending decision plan-1; it was already decided or it expired' },
    }));
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    actions.decide('plan-1', 'approve');
    await settle();
    expect(store.getState().review.decideError).toEqual({ id: 'plan-1', message: 'no pending decision plan-1; it was already decided or it expired (E_INVALID_ARGS)' });
    expect(store.getState().review.deciding).toBeNull();
    expect(ids(store.getState().review.cards)).toEqual(['plan-1', 'tool_call-2']);
  });

  it('notifies only for cards that arrive after the first queue, once each, and opens Review on click', async () => {
    const transport = runtimeWithQueue([toolCallCard(1)]);
    const notifications = fakeNotifications('granted');
    const store = createCockpitStore();
    connectCockpit({ transport, store, notifications, window });
    transport.setState('connected');
    await settle();
    expect(notifications.shown).toEqual([]);

    const write = toolCallCard(3, { riskLevel: 'high', details: { tool: 'write_file' } });
    const backup = planCard(4, { riskLevel: 'high', rationale: 'A verification check of this plan needs the network.', details: { title: 'Nightly backup' } });
    transport.emit('review.changed', reviewDelta(1, { added: [write, backup] }));
    expect(notifications.shown.map((n) => [n.title, n.body, n.tag])).toEqual([
      ['Approve write_file on filesystem?', 'High risk. Reading files outside the project asks first.', 'silas-review-tool_call-3'],
      ['Approve plan "Nightly backup"?', 'High risk. A verification check of this plan needs the network. Plan 1a2b3c4d.', 'silas-review-plan-4'],
    ]);

    // Decided here, gone there, or seen again after a reconnect: never notified twice.
    transport.emit('review.changed', reviewDelta(2, { removed: [backup.id] }));
    transport.emit('review.changed', reviewDelta(3, { updated: [backup] }));
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(notifications.shown).toHaveLength(2);

    window.history.replaceState(null, '', '/#/stream');
    notifications.shown[1]!.onClick?.();
    expect(store.getState().navigation.route).toBe('review');
  });

  it('stays silent without permission', async () => {
    for (const permission of ['default', 'denied'] as const) {
      const transport = runtimeWithQueue([]);
      const notifications = fakeNotifications(permission);
      connectCockpit({ transport, store: createCockpitStore(), notifications });
      transport.setState('connected');
      await settle();
      transport.emit('review.changed', reviewDelta(1, { added: [toolCallCard(9), planCard(10)] }));
      expect(notifications.shown).toEqual([]);
    }
  });

  it('asks for permission only while it is undecided and records the answer', async () => {
    const notifications = fakeNotifications('default');
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport: new FakeTransport(), store, notifications });
    expect(store.getState().review.notifications).toBe('default');
    actions.enableNotifications();
    await settle();
    expect(notifications.request).toHaveBeenCalledTimes(1);
    expect(store.getState().review.notifications).toBe('granted');
    actions.enableNotifications();
    expect(notifications.request).toHaveBeenCalledTimes(1);
  });

  it('reports notifications as unsupported without a port (desktop shell)', () => {
    const store = createCockpitStore();
    connectCockpit({ transport: new FakeTransport(), store });
    expect(store.getState().review.notifications).toBe('unsupported');
  });
});
