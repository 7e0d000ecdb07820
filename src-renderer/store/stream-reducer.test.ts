import { describe, expect, it } from 'vitest';
import { event, message, opened, OTHER_SCOPE, SCOPE, unconfiguredModels, usage, workEvent } from '../testing/stream-fixtures.js';
import { applyStreamEvent, initialStream, MAX_KEPT_MESSAGES, offeredChips, streamOpened, withMessage, type StreamState } from './stream-reducer.js';

const open = (overrides: Parameters<typeof opened>[0] = {}): StreamState => streamOpened(initialStream, opened(overrides));
const apply = (state: StreamState, ...events: Parameters<typeof applyStreamEvent>[1][]) => events.reduce(applyStreamEvent, state);
const ids = (state: StreamState) => state.messages.map((m) => m.id);

describe('streamOpened', () => {
  it('takes the scope, history, busy state and models of a fresh scope', () => {
    const state = open({ history: [message(1, 'person'), message(2)], busy: true, models: unconfiguredModels() });
    expect(state).toMatchObject({ status: 'open', scope: SCOPE, resumed: false, busy: true, draft: null, work: [], chips: null, lastTurn: null });
    expect(ids(state)).toEqual(['msg-1', 'msg-2']);
    expect(state.models?.ready).toBe(false);
  });

  it('keeps work cards, chips and the meter when the same scope is reopened, and drops the partial draft', () => {
    let state = apply(
      open(),
      event('turn_started', { turn_id: 't1', turn: 1, message: message(1, 'person') }),
      event('message', { turn_id: 't1', message: message(2), chips: [{ value: 'yes', label: 'Yes' }] }),
      workEvent('w1'),
      event('turn_finished', { turn_id: 't1', outcome: 'planned', usage: usage(), error: null }),
      event('turn_started', { turn_id: 't2', turn: 2, message: message(3, 'person') }),
      event('draft', { turn_id: 't2', delta: 'half an ans' }),
    );
    state = streamOpened(state, opened({ resumed: true, busy: true, history: [message(1, 'person'), message(2), message(3, 'person')] }));
    expect(state).toMatchObject({ resumed: true, busy: true, turnId: 't2', draft: null });
    expect(state.work.map((w) => w.work_item_id)).toEqual(['w1']);
    expect(state.lastTurn?.turnId).toBe('t1');

    const other = streamOpened(state, opened({ scope: OTHER_SCOPE }));
    expect(other).toMatchObject({ scope: OTHER_SCOPE, work: [], chips: null, lastTurn: null, turnId: null, busy: false });
  });
});

describe('applyStreamEvent', () => {
  it('ignores events of another scope, and every event before a scope is open', () => {
    const state = open();
    const foreign = [
      event('turn_started', { scope: OTHER_SCOPE, turn_id: 't1', turn: 1, message: message(1, 'person') }),
      event('draft', { scope: OTHER_SCOPE, turn_id: 't1', delta: 'x' }),
      event('message', { scope: OTHER_SCOPE, turn_id: 't1', message: message(2), chips: [] }),
      workEvent('w1', { scope: OTHER_SCOPE }),
      event('turn_finished', { scope: OTHER_SCOPE, turn_id: 't1', outcome: 'answered', usage: usage(), error: null }),
    ];
    for (const e of foreign) expect(applyStreamEvent(state, e)).toBe(state);
    expect(applyStreamEvent(initialStream, workEvent('w1'))).toBe(initialStream);
  });

  it('runs a turn: the person message, a streamed draft, a reset, the final answer, the usage', () => {
    let state = apply(open(), event('turn_started', { turn_id: 't1', turn: 1, message: message(1, 'person', 'What changed?') }));
    expect(state).toMatchObject({ busy: true, turnId: 't1', draft: null });
    expect(ids(state)).toEqual(['msg-1']);

    state = apply(state, event('draft', { turn_id: 't1', delta: 'Two ' }), event('draft', { turn_id: 't1', delta: 'files' }));
    expect(state.draft).toEqual({ turnId: 't1', text: 'Two files' });
    state = apply(state, event('draft_reset', { turn_id: 't1', reason: 'repair' }));
    expect(state.draft).toBeNull();
    state = apply(state, event('draft', { turn_id: 't1', delta: 'Three files' }));
    expect(state.draft?.text).toBe('Three files');

    state = apply(state, event('message', { turn_id: 't1', message: message(2, 'silas', 'Three files changed.'), chips: [] }));
    expect(state.draft).toBeNull();
    expect(state.messages.map((m) => m.text)).toEqual(['What changed?', 'Three files changed.']);
    expect(state.busy).toBe(true);

    state = apply(state, event('turn_finished', { turn_id: 't1', outcome: 'answered', usage: usage(), error: null }));
    expect(state).toMatchObject({ busy: false, turnId: null, lastTurn: { turnId: 't1', outcome: 'answered', usage: usage(), error: null } });
  });

  it('starts a draft afresh for another turn and ignores a reset of another turn', () => {
    let state = apply(open(), event('draft', { turn_id: 't1', delta: 'old' }), event('draft', { turn_id: 't2', delta: 'new' }));
    expect(state.draft).toEqual({ turnId: 't2', text: 'new' });
    state = apply(state, event('draft_reset', { turn_id: 't1', reason: 'x' }));
    expect(state.draft?.text).toBe('new');
    // A message outside any turn (a progress note) leaves the draft alone.
    state = apply(state, event('message', { turn_id: null, message: message(5, 'system', 'Plan approved'), chips: [] }));
    expect(state.draft?.text).toBe('new');
  });

  it('drops the draft of a turn that finished without an answer', () => {
    const state = apply(
      open(),
      event('draft', { turn_id: 't1', delta: 'partial' }),
      event('turn_finished', { turn_id: 't1', outcome: 'cancelled', usage: usage({ cost_usd: null }), error: null }),
    );
    expect(state.draft).toBeNull();
    expect(state.lastTurn).toMatchObject({ outcome: 'cancelled', usage: { cost_usd: null } });
  });

  it('does not repeat a message it already holds', () => {
    const state = apply(open({ history: [message(1, 'person')] }), event('turn_started', { turn_id: 't1', turn: 1, message: message(1, 'person') }));
    expect(ids(state)).toEqual(['msg-1']);
  });

  it('keeps the latest work event of each item, in order of first appearance', () => {
    const state = apply(
      open(),
      workEvent('w1'),
      workEvent('w2', { status: 'running' }),
      workEvent('w1', { status: 'done', detail: 'All checks passed.' }),
    );
    expect(state.work.map((w) => [w.work_item_id, w.status, w.detail])).toEqual([
      ['w1', 'done', 'All checks passed.'],
      ['w2', 'running', 'Waits for your signature.'],
    ]);
    expect(state.work[0]).toEqual({ work_item_id: 'w1', title: 'Plan w1', status: 'done', detail: 'All checks passed.', plan_hash: '1a2b3c4d' + 'e'.repeat(56), review_id: 'plan-w1' });
  });

  it('offers the chips of the last Silas message until the person answers', () => {
    const chips = [
      { value: 'yes', label: 'Yes, go ahead' },
      { value: 'no', label: 'Not now' },
    ];
    let state = apply(open(), event('message', { turn_id: 't1', message: message(2), chips }));
    expect(offeredChips(state)).toEqual(chips);
    state = apply(state, event('message', { turn_id: null, message: message(3, 'system'), chips: [] }));
    expect(offeredChips(state)).toEqual(chips);
    state = apply(state, event('message', { turn_id: null, message: message(4), chips: [] }));
    expect(offeredChips(state)).toEqual([]);

    state = apply(state, event('message', { turn_id: 't2', message: message(5), chips }));
    state = apply(state, event('turn_started', { turn_id: 't3', turn: 3, message: message(6, 'person') }));
    expect(offeredChips(state)).toEqual([]);
  });

  it("offers the chips of the runtime's report (a finished plan's next steps) until someone speaks", () => {
    const next = [{ value: 'Show me hello.txt', label: 'Show me hello.txt' }];
    let state = apply(open(), event('message', { turn_id: null, message: message(2, 'system', 'The plan ended done'), chips: next }));
    expect(offeredChips(state)).toEqual(next);
    state = apply(state, event('turn_started', { turn_id: 't3', turn: 3, message: message(3, 'person') }));
    expect(offeredChips(state)).toEqual([]);
  });
});

describe('withMessage', () => {
  it('keeps the newest messages of a long conversation', () => {
    let messages: readonly ReturnType<typeof message>[] = [];
    for (let n = 0; n < MAX_KEPT_MESSAGES + 3; n += 1) messages = withMessage(messages, message(n));
    expect(messages).toHaveLength(MAX_KEPT_MESSAGES);
    expect(messages[0]!.id).toBe('msg-3');
  });
});
