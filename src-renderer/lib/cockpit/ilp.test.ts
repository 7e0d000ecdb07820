import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Envelope } from '../../../src-shared/contract/index.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { ILP_PAGE } from '../../store/ilp-state.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { arrived, compositionView, distillResult, IlpRuntime, summaries } from '../../testing/ilp-fixtures.js';
import { connectCockpit } from './connect.js';
import { LEARNED_REFRESH_DELAY_MS } from './ilp.js';

async function drain(): Promise<void> {
  for (let i = 0; i < 6; i += 1) await settle();
}

async function connected(runtime = new IlpRuntime()) {
  const transport = runtime.serve(new FakeTransport());
  const store = createCockpitStore();
  const cockpit = connectCockpit({ transport, store });
  transport.setState('connected');
  await drain();
  return { runtime, transport, store, page: () => store.getState().ilp, actions: cockpit.actions };
}

/** Holds a handler's answers until released. */
function deferred(transport: FakeTransport, name: 'ilp.list' | 'ilp.get' | 'ilp.replay' | 'ilp.distill' | 'ilp.rollback') {
  const waiting: Array<{ args: unknown; answer(value: Envelope<unknown>): void }> = [];
  transport.handle(name, (args) => new Promise((answer) => waiting.push({ args, answer })));
  return waiting;
}

describe('connectCockpit: ilp', () => {
  it('reads the newest page on connect, never the whole store, and older pages by key once at a time', async () => {
    const runtime = new IlpRuntime();
    runtime.stored = summaries(10_000);
    const { transport, page, actions } = await connected(runtime);
    expect(transport.callsTo('ilp.list')).toEqual([{ limit: ILP_PAGE }]);
    expect(page().compositions).toHaveLength(ILP_PAGE);
    expect(page()).toMatchObject({ total: 10_000, hasMore: true });
    actions.loadOlderCompositions();
    actions.loadOlderCompositions();
    await drain();
    expect(transport.callsTo('ilp.list')).toEqual([{ limit: ILP_PAGE }, { before: `c-${10_000 - ILP_PAGE + 1}`, limit: ILP_PAGE }]);
    expect(page().compositions).toHaveLength(2 * ILP_PAGE);
  });

  it('inserts and updates rows from ilp.composition, reads the inspected one again when it changes, and ignores a malformed event', async () => {
    const { transport, page, actions } = await connected();
    actions.selectComposition('c-2');
    await drain();
    expect(transport.callsTo('ilp.get')).toEqual([{ id: 'c-2' }]);
    transport.emit('ilp.composition', arrived('c-4', { started_at: '2026-01-01T13:00:00.000Z', replay_of: 'c-2' }));
    transport.emit('ilp.composition', { id: 'c-5', status: 'fine' });
    expect(page().compositions.map((c) => c.id)).toEqual(['c-4', 'c-3', 'c-2', 'c-1']);
    expect(transport.callsTo('ilp.get')).toHaveLength(1);
    transport.emit('ilp.composition', { ...page().compositions[2]!, status: 207 });
    await drain();
    expect(transport.callsTo('ilp.get')).toEqual([{ id: 'c-2' }, { id: 'c-2' }]);
  });

  it('lands only the newest inspection when the person clicks quickly', async () => {
    const { transport, page, actions } = await connected();
    const gets = deferred(transport, 'ilp.get');
    actions.selectComposition('c-1');
    actions.selectComposition('c-3');
    gets[1]!.answer({ ok: true, value: compositionView('c-3') });
    gets[0]!.answer({ ok: true, value: compositionView('c-1') });
    await drain();
    expect(page()).toMatchObject({ selected: 'c-3', view: { status: 'ready', composition: { id: 'c-3' } } });
  });

  it('replays the selected composition under the draft header, and not while the draft is not a JSON object', async () => {
    const { runtime, page, actions } = await connected();
    actions.selectComposition('c-3');
    await drain();
    actions.editReplayHeader('{"max_budget_usd": ');
    actions.replayComposition();
    expect(runtime.replays).toEqual([]);
    actions.editReplayHeader('{"max_budget_usd": 0.0001}');
    actions.replayComposition();
    await drain();
    expect(runtime.replays).toEqual([{ id: 'c-3', constitutional_header: '{"max_budget_usd": 0.0001}' }]);
    expect(page().replay).toMatchObject({ of: 'c-3', phase: 'done', result: { status: 429 } });
  });

  it('says why a replay was refused, and drops an answer for a composition no longer inspected', async () => {
    const { transport, page, actions } = await connected();
    transport.handle('ilp.replay', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'the ILP service is not running in this runtime; restart Silas' } }));
    actions.selectComposition('c-3');
    await drain();
    actions.replayComposition();
    await drain();
    expect(page().replay).toMatchObject({ phase: 'error', error: 'the ILP service is not running in this runtime; restart Silas (E_UNAVAILABLE)' });
    const replays = deferred(transport, 'ilp.replay');
    actions.replayComposition();
    actions.selectComposition('c-1');
    replays[0]!.answer({ ok: true, value: compositionView('c-9') });
    await drain();
    expect(page().replay).toMatchObject({ of: 'c-1', result: null });
  });

  it('reads the list and the inspected composition again after a reconnect, and when the ILP page is opened', async () => {
    const { transport, actions } = await connected();
    actions.selectComposition('c-1');
    await drain();
    transport.setState('reconnecting');
    transport.setState('connected');
    await drain();
    expect(transport.callsTo('ilp.list')).toHaveLength(2);
    expect(transport.callsTo('ilp.get')).toHaveLength(2);
    actions.navigate('ilp');
    await drain();
    expect(transport.callsTo('ilp.list')).toHaveLength(3);
  });
});

describe('connectCockpit: ilp learned slices', () => {
  afterEach(() => vi.useRealTimers());

  it('reads the learned slices on connect and when the ILP page is opened', async () => {
    const { transport, page, actions } = await connected();
    expect(transport.callsTo('ilp.slices')).toEqual([{}]);
    expect(page().learned).toMatchObject({ status: 'ready', untrusted: 0 });
    expect(page().learned.slices.map((s) => s.slice_id)).toEqual(['learned-budgeting', 'learned-homeostasis']);
    actions.navigate('ilp');
    await drain();
    expect(transport.callsTo('ilp.slices')).toHaveLength(2);
  });

  it('distills once at a time with the options given, then reads the list again', async () => {
    const { runtime, transport, page, actions } = await connected();
    const distills = deferred(transport, 'ilp.distill');
    actions.distillSlices({ min_frequency: 4 });
    actions.distillSlices();
    expect(distills.map((d) => d.args)).toEqual([{ min_frequency: 4 }]);
    expect(page().learned.distill.phase).toBe('running');
    distills[0]!.answer({ ok: true, value: distillResult() });
    await drain();
    expect(page().learned.distill).toMatchObject({ phase: 'done', result: { proposed: [{ slice_id: 'learned-diversification' }, { slice_id: 'learned-budgeting' }] } });
    expect(transport.callsTo('ilp.slices')).toHaveLength(2);
    expect(runtime.distills).toEqual([]);
  });

  it('says why a distillation failed', async () => {
    const { transport, page, actions } = await connected();
    transport.handle('ilp.distill', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'no planner model is configured' } }));
    actions.distillSlices();
    await drain();
    expect(page().learned.distill).toEqual({ phase: 'error', result: null, error: 'no planner model is configured (E_UNAVAILABLE)' });
  });

  it('rolls back only a slice in force, once at a time, then reads the list again', async () => {
    const { runtime, transport, page, actions } = await connected();
    actions.rollbackSlice('learned-homeostasis');
    expect(runtime.rollbacks).toEqual([]);
    actions.rollbackSlice('learned-budgeting');
    actions.rollbackSlice('learned-budgeting');
    await drain();
    expect(runtime.rollbacks).toEqual([{ slice_id: 'learned-budgeting' }]);
    expect(page().learned.rollback).toMatchObject({ phase: 'done', result: { kind: 'rollback', restored_version: 1, version: 3 } });
    expect(transport.callsTo('ilp.slices')).toHaveLength(2);
    expect(page().learned.slices[0]).toMatchObject({ slice_id: 'learned-budgeting', deployed_version: 3 });
  });

  it('reads the list again after a refused rollback: it may have changed elsewhere', async () => {
    const { transport, page, actions } = await connected();
    transport.handle('ilp.rollback', () => ({ ok: false, error: { code: 'E_CONFLICT', message: 'learned-budgeting changed meanwhile' } }));
    actions.rollbackSlice('learned-budgeting');
    await drain();
    expect(page().learned.rollback).toEqual({ phase: 'error', slice: 'learned-budgeting', result: null, error: 'learned-budgeting changed meanwhile (E_CONFLICT)' });
    expect(transport.callsTo('ilp.slices')).toHaveLength(2);
  });

  it("reads the list again once per burst of the slice registry's audit entries, not for a composition's", async () => {
    const { transport } = await connected();
    vi.useFakeTimers();
    transport.emit('audit.appended', auditEntry(100, { event: 'ilp.composition' }));
    vi.advanceTimersByTime(LEARNED_REFRESH_DELAY_MS);
    expect(transport.callsTo('ilp.slices')).toHaveLength(1);
    transport.emit('audit.appended', auditEntry(101, { event: 'ilp.slice_deployed' }));
    transport.emit('audit.appended', auditEntry(102, { event: 'ilp.slice_declined' }));
    vi.advanceTimersByTime(LEARNED_REFRESH_DELAY_MS);
    vi.useRealTimers();
    await drain();
    expect(transport.callsTo('ilp.slices')).toHaveLength(2);
  });
});
