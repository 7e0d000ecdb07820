import { describe, expect, it } from 'vitest';
import type { PendingPlanApproval } from '../../src-shared/schemas/plan-approval.js';
import { createCockpitStore } from '../store/cockpit-store.js';
import { pendingApproval } from '../test/approval-fixtures.js';
import { FakeTransport, settle } from '../test/fake-transport.js';
import { fakeNotifications } from '../test/fake-notifications.js';
import { pendingPlan } from '../test/plan-fixtures.js';
import { connectCockpit, planNotificationText } from './cockpit.js';

function runtimeWithPlans(pending: PendingPlanApproval[] = [pendingPlan(2), pendingPlan(1)]): FakeTransport {
  return new FakeTransport().handle('plans.list', () => ({ ok: true, value: { pending } }));
}

/** A plans.decide handler that answers only when the test says so. */
function heldDecisions(transport: FakeTransport) {
  const answers: (() => void)[] = [];
  transport.handle(
    'plans.decide',
    (args) =>
      new Promise((resolve) => {
        const { id, decision } = args as { id: string; decision: string };
        answers.push(() => resolve({ ok: true, value: { id, outcome: decision === 'approve' ? 'approved' : 'denied' } }));
      }),
  );
  return answers;
}

const ids = (cards: readonly { id: string }[]) => cards.map((card) => card.id);

describe('connectCockpit: plan approvals', () => {
  it('loads the plan queue with plans.list on every (re)connect', async () => {
    const transport = runtimeWithPlans();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    expect(store.getState().plans.status).toBe('loading');
    await settle();
    expect(transport.callsTo('plans.list')).toEqual([{}]);
    expect(ids(store.getState().plans.pending)).toEqual(['plan-1', 'plan-2']);
    expect(store.getState().plans.status).toBe('ready');
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('plans.list')).toHaveLength(2);
  });

  it('drops a plans.list answer that belongs to a replaced connection', async () => {
    let answerFirst: () => void = () => {};
    let calls = 0;
    const transport = new FakeTransport().handle('plans.list', () => {
      calls += 1;
      if (calls === 1) return new Promise((resolve) => (answerFirst = () => resolve({ ok: true, value: { pending: [pendingPlan(1)] } })));
      return { ok: true, value: { pending: [pendingPlan(2)] } };
    });
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    answerFirst();
    await settle();
    expect(ids(store.getState().plans.pending)).toEqual(['plan-2']);
  });

  it('shows why the plan queue could not be loaded', async () => {
    const transport = new FakeTransport().handle('plans.list', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'runtime gone' } }));
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    expect(store.getState().plans).toMatchObject({ status: 'error', error: 'runtime gone (E_UNAVAILABLE)' });
  });

  it('replaces the list on plans.changed and ignores invalid payloads', async () => {
    const transport = runtimeWithPlans();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    transport.emit('plans.changed', { pending: [pendingPlan(5), pendingPlan(3)] });
    expect(ids(store.getState().plans.pending)).toEqual(['plan-3', 'plan-5']);

    transport.emit('plans.changed', { pending: [{ id: 'broken' }] });
    transport.emit('plans.changed', { pending: [pendingPlan(7, { planHash: 'not-a-hash' })] });
    transport.emit('plans.changed', { pending: [pendingPlan(8, { risk: 'apocalyptic' as 'high' })] });
    transport.emit('plans.changed', null);
    transport.emit('plans.changed', { plans: [] });
    expect(ids(store.getState().plans.pending)).toEqual(['plan-3', 'plan-5']);

    transport.emit('plans.changed', { pending: [] });
    expect(store.getState().plans.pending).toEqual([]);
  });

  it('sends plans.decide with the id and decision, one decision at a time', async () => {
    const transport = runtimeWithPlans();
    const answers = heldDecisions(transport);
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    actions.decidePlan('plan-1', 'approve');
    actions.decidePlan('plan-2', 'deny');
    expect(transport.callsTo('plans.decide')).toEqual([{ id: 'plan-1', decision: 'approve' }]);
    expect(store.getState().plans.deciding).toBe('plan-1');
    answers[0]!();
    await settle();
    expect(store.getState().plans.deciding).toBeNull();
    expect(ids(store.getState().plans.pending)).toEqual(['plan-2']);
    actions.decidePlan('plan-2', 'deny');
    expect(transport.callsTo('plans.decide')).toEqual([
      { id: 'plan-1', decision: 'approve' },
      { id: 'plan-2', decision: 'deny' },
    ]);
  });

  it('holds plan and tool-call decisions behind each other', async () => {
    let answerApproval: () => void = () => {};
    const transport = runtimeWithPlans()
      .handle('approvals.list', () => ({ ok: true, value: { pending: [pendingApproval(1)], paused: false } }))
      .handle('approvals.decide', () => new Promise((resolve) => (answerApproval = () => resolve({ ok: true, value: { id: 'approval-1', outcome: 'denied' } }))));
    const answers = heldDecisions(transport);
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();

    actions.decideApproval('approval-1', 'deny');
    actions.decidePlan('plan-1', 'approve');
    expect(transport.callsTo('plans.decide')).toEqual([]);
    answerApproval();
    await settle();

    actions.decidePlan('plan-1', 'approve');
    actions.decideApproval('approval-1', 'deny');
    expect(transport.callsTo('approvals.decide')).toHaveLength(1);
    answers[0]!();
    await settle();
    expect(transport.callsTo('plans.decide')).toEqual([{ id: 'plan-1', decision: 'approve' }]);
  });

  it('keeps the runtime message of a failed decision', async () => {
    const transport = runtimeWithPlans().handle('plans.decide', () => ({
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'no pending plan approval plan-1; it was already decided or it expired' },
    }));
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    actions.decidePlan('plan-1', 'approve');
    await settle();
    expect(store.getState().plans.decideError).toEqual({
      id: 'plan-1',
      message: 'no pending plan approval plan-1; it was already decided or it expired (E_INVALID_ARGS)',
    });
    expect(store.getState().plans.deciding).toBeNull();
    expect(ids(store.getState().plans.pending)).toEqual(['plan-1', 'plan-2']);
  });

  it('notifies only for plans that arrive after the first plan queue, once each, and opens Review on click', async () => {
    const transport = runtimeWithPlans([pendingPlan(1)]);
    const notifications = fakeNotifications('granted');
    const store = createCockpitStore();
    connectCockpit({ transport, store, notifications, window });
    transport.setState('connected');
    await settle();
    expect(notifications.shown).toEqual([]);

    const arriving = pendingPlan(2, { title: 'Nightly backup', risk: 'high', rationale: 'A verification check of this plan needs the network.' });
    transport.emit('plans.changed', { pending: [pendingPlan(1), arriving] });
    expect(notifications.shown.map((n) => [n.title, n.body, n.tag])).toEqual([
      ['Approve plan "Nightly backup"?', 'High risk. A verification check of this plan needs the network. Plan 1a2b3c4d.', 'silas-plan-plan-2'],
    ]);

    transport.emit('plans.changed', { pending: [arriving] });
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(notifications.shown).toHaveLength(1);

    window.history.replaceState(null, '', '/#/stream');
    notifications.shown[0]!.onClick?.();
    expect(store.getState().navigation.route).toBe('review');
  });

  it('stays silent without permission', async () => {
    const transport = runtimeWithPlans([]);
    const notifications = fakeNotifications('denied');
    connectCockpit({ transport, store: createCockpitStore(), notifications });
    transport.setState('connected');
    await settle();
    transport.emit('plans.changed', { pending: [pendingPlan(9)] });
    expect(notifications.shown).toEqual([]);
  });

  it('words a plan notification without an empty rationale', () => {
    expect(planNotificationText({ ...pendingPlan(1), rationale: '' })).toEqual({ title: 'Approve plan "Fix the timezone bug 1"?', body: 'Medium risk. Plan 1a2b3c4d.' });
  });
});
