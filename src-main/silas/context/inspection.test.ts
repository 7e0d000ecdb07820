import { describe, expect, it } from 'vitest';
import { MAX_CONTEXT_ITEMS_SHOWN, StreamContextView } from '../../../src-shared/schemas/stream.js';
import { TokenBudget } from '../../../src-shared/silas/context.js';
import { ContextManager } from './context-manager.js';
import { toolResultSource } from './eviction.js';
import { inspectContext } from './inspection.js';
import { FIXED_NOW, FakeTokenCounter, draft, words } from './testing/context.js';

const SCOPE = 'scope-AAAAAAAAAAAAAAAAAAAAAA';

function manager(): ContextManager {
  return new ContextManager({ counter: new FakeTokenCounter(), budget: TokenBudget.parse({ total: 10_000, system_max: 100, observation_mask_after_turns: 2 }), clock: () => FIXED_NOW });
}

describe('context inspection (§5.7 context_inspection)', () => {
  it('describes every zone under the active profile: budgets, items and their flags, without their whole text', () => {
    const cm = manager();
    cm.add(SCOPE, draft('sys', 'system', 'system', words(50), { source: 'system:constitution', pinned: true, turn_number: 0 }));
    cm.add(SCOPE, draft('c1', 'chronicle', 'message', `[auth] cockpit: ${words(200)}`, { source: 'channel:cockpit', taint: 'auth' }));
    cm.add(SCOPE, draft('t1', 'chronicle', 'tool_result', words(30), { source: toolResultSource('shell_exec', 'failed'), taint: 'external' }));
    cm.add(SCOPE, draft('m1', 'memory', 'memory', 'prefers tabs', { source: 'memory:agent_memory_op', relevance: 0.42, turn_number: 2 }));
    cm.add(SCOPE, draft('p1', 'workspace', 'plan', words(20), { source: 'agent:planner', pinned: true, turn_number: 2 }));
    cm.setProfile(SCOPE, 'coding');
    cm.render(SCOPE, 5);

    const view = StreamContextView.parse(inspectContext(cm, SCOPE, 4));
    expect(view).toMatchObject({ scope: SCOPE, turns: 4, profile: 'coding', total_budget: 10_000, threshold: 8_000, allocable: 9_950, last_eviction: null });
    expect(view.zones.map((zone) => [zone.zone, zone.budget, zone.share])).toEqual([
      ['system', 100, null],
      ['chronicle', 1_990, 0.2],
      ['memory', 1_990, 0.2],
      ['workspace', 3_980, 0.4],
    ]);
    const [, chronicle, memory, workspace] = view.zones;
    expect(chronicle!.items[0]).toMatchObject({ ctx_id: 'c1', kind: 'message', source: 'channel:cockpit', taint: 'auth', tokens: 202, masked: false, pinned: false, turn: 1 });
    expect(chronicle!.items[0]!.excerpt.length).toBeLessThanOrEqual(121);
    expect(chronicle!.items[1]).toMatchObject({ ctx_id: 't1', masked: true, taint: 'external', excerpt: expect.stringContaining('[Result of shell_exec (FAILED)') });
    expect(memory!.items[0]).toMatchObject({ ctx_id: 'm1', relevance: 0.42, excerpt: 'prefers tabs' });
    expect(workspace!.items[0]).toMatchObject({ ctx_id: 'p1', pinned: true });
    expect(view.used).toBe(view.zones.reduce((sum, zone) => sum + zone.tokens, 0));
  });

  it('lists the newest items of a crowded zone and counts the others', () => {
    const cm = manager();
    for (let i = 0; i < MAX_CONTEXT_ITEMS_SHOWN + 5; i += 1) cm.add(SCOPE, draft(`c${i}`, 'chronicle', 'message', 'hi there', { turn_number: i }));
    const chronicle = inspectContext(cm, SCOPE, 0).zones[1]!;
    expect(chronicle.items).toHaveLength(MAX_CONTEXT_ITEMS_SHOWN);
    expect(chronicle.omitted).toBe(5);
    expect(chronicle.items[0]!.ctx_id).toBe('c5');
  });

  it('shows the last eviction: tier, what and why', () => {
    const cm = manager();
    cm.add(SCOPE, draft('c1', 'chronicle', 'message', 'hi'));
    cm.noteEviction(SCOPE, { turn: 3, tier: 'scorer', why: 'scorer: old small talk', at: FIXED_NOW.toISOString(), items: [{ ctx_id: 'c0', zone: 'chronicle', kind: 'message', token_count: 7, reason: 'scorer' }] });
    expect(inspectContext(cm, SCOPE, 3).last_eviction).toEqual({ turn: 3, tier: 'scorer', why: 'scorer: old small talk', at: FIXED_NOW.toISOString(), items: [{ ctx_id: 'c0', zone: 'chronicle', kind: 'message', tokens: 7, reason: 'scorer' }], omitted: 0 });
  });

  it('reads an unknown scope as empty and does not create it', () => {
    const cm = manager();
    const view = inspectContext(cm, SCOPE, 0);
    expect(view.used).toBe(0);
    expect(view.profile).toBe('conversation');
    cm.noteEviction(SCOPE, { turn: 1, tier: 'heuristic', why: 'x', at: FIXED_NOW.toISOString(), items: [] });
    expect(cm.lastEviction(SCOPE)).toBeNull();
  });
});
