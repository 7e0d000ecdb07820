import { describe, expect, it } from 'vitest';
import { compositionSummary, compositionView, summaries } from '../../src-shared/schemas/testing/ilp-compositions.js';
import * as r from './ilp-state.js';

const page = (count: number, from = 0, total = count) => ({ compositions: summaries(total).slice(from, from + count), total });
const ids = (s: r.IlpState) => s.compositions.map((c) => c.id);

describe('ilp reducers', () => {
  it('holds the newest page, and knows older ones exist only after a full page short of the total', () => {
    const s = r.newestLoaded(r.listLoading(r.initialIlp), page(r.ILP_PAGE, 0, 10_000));
    expect(s).toMatchObject({ listStatus: 'ready', total: 10_000, hasMore: true });
    expect(ids(s).slice(0, 2)).toEqual(['c-10000', 'c-9999']);
    expect(r.newestLoaded(r.initialIlp, page(3)).hasMore).toBe(false);
    expect(r.listLoading(s).listStatus).toBe('ready');
    expect(r.listFailed(s, 'gone')).toMatchObject({ listStatus: 'ready', listError: 'gone' });
    expect(r.listFailed(r.initialIlp, 'gone')).toMatchObject({ listStatus: 'error', listError: 'gone' });
  });

  it('appends older pages without listing one twice, and keeps them when the newest page is read again', () => {
    let s = r.newestLoaded(r.initialIlp, page(r.ILP_PAGE, 0, 120));
    s = r.olderLoaded(r.olderLoading(s), page(r.ILP_PAGE, r.ILP_PAGE - 1, 120));
    expect(ids(s)).toHaveLength(2 * r.ILP_PAGE - 1);
    expect(s).toMatchObject({ loadingOlder: false, hasMore: true });
    const again = r.newestLoaded(s, page(r.ILP_PAGE, 0, 120));
    expect(ids(again)).toEqual(ids(s));
    expect(again.hasMore).toBe(true);
    // The newest page no longer reaches what was held (many arrived meanwhile): only it is kept.
    const moved = r.newestLoaded(s, { compositions: summaries(1000).slice(0, r.ILP_PAGE), total: 1000 });
    expect(ids(moved)).toHaveLength(r.ILP_PAGE);
    expect(r.olderFailed(r.olderLoading(s), 'busy')).toMatchObject({ loadingOlder: false, listError: 'busy' });
  });

  it('puts a composition just stored first, whenever it started, and updates one it holds in place', () => {
    let s = r.newestLoaded(r.initialIlp, page(3));
    // Started before the others but stored after them (a long composition): the list is in storage order.
    s = r.compositionArrived(s, compositionSummary('c-4', { started_at: '2025-01-01T00:00:00.000Z' }));
    expect(ids(s)).toEqual(['c-4', 'c-3', 'c-2', 'c-1']);
    expect(s.total).toBe(4);
    s = r.compositionArrived(s, { ...s.compositions[2]!, status: 429 });
    expect(ids(s)).toEqual(['c-4', 'c-3', 'c-2', 'c-1']);
    expect(s.compositions[2]!.status).toBe(429);
    expect(s.total).toBe(4);
  });

  it('prefills the replay form from the selected composition once, and keeps what the person typed through a reload', () => {
    let s = r.compositionSelected(r.newestLoaded(r.initialIlp, page(3)), 'c-2');
    expect(s).toMatchObject({ selected: 'c-2', view: { status: 'loading' }, replay: { of: 'c-2', draft: '' } });
    s = r.viewLoaded(s, 'c-2', compositionView('c-2'));
    expect(JSON.parse(s.replay.draft)).toMatchObject({ domain: 'meta', max_budget_usd: 1 });
    s = r.replayEdited(s, '{"max_budget_usd": 0.0001}');
    s = r.viewLoaded(r.viewLoading(s), 'c-2', compositionView('c-2', { status: 207 }));
    expect(s.view).toMatchObject({ status: 'ready', composition: { status: 207 } });
    expect(s.replay.draft).toBe('{"max_budget_usd": 0.0001}');
    expect(r.viewLoaded(s, 'c-1', compositionView('c-1'))).toBe(s);
    expect(r.compositionSelected(s, 'c-2')).toBe(s);
    expect(r.compositionSelected(s, 'c-1').replay).toEqual({ of: 'c-1', draft: '', phase: 'idle', result: null, error: null });
  });

  it('keeps a replay\'s outcome for the composition it replayed only', () => {
    let s = r.viewLoaded(r.compositionSelected(r.initialIlp, 'c-1'), 'c-1', compositionView('c-1'));
    s = r.replaySending(s);
    expect(s.replay.phase).toBe('sending');
    const result = compositionView('c-9', { status: 429, replay_of: 'c-1' });
    expect(r.replayDone(s, 'c-2', result)).toBe(s);
    s = r.replayDone(s, 'c-1', result);
    expect(s.replay).toMatchObject({ phase: 'done', result: { status: 429 } });
    expect(r.replayFailed(s, 'c-1', 'budget').replay).toMatchObject({ phase: 'error', error: 'budget' });
    expect(r.viewFailed(s, 'c-1', 'gone').view).toMatchObject({ status: 'ready', error: 'gone' });
    expect(r.viewFailed(r.compositionSelected(s, 'c-5'), 'c-5', 'gone').view).toMatchObject({ status: 'error', error: 'gone' });
  });
});
