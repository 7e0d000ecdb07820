import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src-shared/contract/index.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { ILP_PAGE } from '../../store/ilp-state.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { arrived, compositionView, IlpRuntime, summaries } from '../../testing/ilp-fixtures.js';
import { connectCockpit } from './connect.js';

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
function deferred(transport: FakeTransport, name: 'ilp.list' | 'ilp.get' | 'ilp.replay') {
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
