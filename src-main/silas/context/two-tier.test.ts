import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ScorerOutput } from '../../../src-shared/silas/agents.js';
import { TokenBudget } from '../../../src-shared/silas/context.js';
import { createContextScorer } from '../agents/definitions.js';
import type { StructuredCall } from '../agents/structured.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { ContextManager } from './context-manager.js';
import { FIXED_NOW, FakeTokenCounter, draft, words } from './testing/context.js';
import { ContextEviction, type EvictionMeter, type ScorerSource } from './two-tier.js';

/*
 * Tier 2 of spec 002 §5.7 (ADR-015) over a real ContextManager. The budget (FakeTokenCounter: one
 * token per word): total 1000, system_max 100, eviction_threshold_pct 0.5 → threshold 500 tokens;
 * under the conversation profile the allocable 900 give chronicle 405, memory 180, workspace 135.
 * `fill` puts 755 tokens in a scope, every zone within its budget, so Tier 1 evicts nothing and
 * Tier 2 must free 255:
 *   system     sys (100, constitution)
 *   chronicle  c1…c8 (50 each, turns 1…8), c9 (5, the current turn 9, the message being answered)
 *   memory     m1 (50, relevance 0.2, external), m2 (50, relevance 0.9), m3 (50, pinned profile)
 *   workspace  p1 (60, pinned plan), e1 (40, finished work)
 */

const TURN = 9;
const counter = new FakeTokenCounter();

function manager(): ContextManager {
  const budget = TokenBudget.parse({ total: 1_000, system_max: 100, eviction_threshold_pct: 0.5 });
  return new ContextManager({ counter, budget, clock: () => FIXED_NOW });
}

function fill(cm: ContextManager, scope = 'owner'): void {
  cm.add(scope, draft('sys', 'system', 'system', words(100), { source: 'system:constitution', turn_number: 0, pinned: true }));
  for (let turn = 1; turn <= 8; turn += 1) cm.add(scope, draft(`c${turn}`, 'chronicle', 'message', words(50, `t${turn}w`), { turn_number: turn, taint: turn % 2 === 0 ? 'external' : 'auth' }));
  cm.add(scope, draft('c9', 'chronicle', 'message', words(5), { turn_number: TURN }));
  cm.add(scope, draft('m1', 'memory', 'memory', words(50), { source: 'memory:conversation_raw', relevance: 0.2, taint: 'external', turn_number: TURN }));
  cm.add(scope, draft('m2', 'memory', 'memory', words(50), { source: 'memory:agent_memory_op', relevance: 0.9, turn_number: TURN }));
  cm.add(scope, draft('m3', 'memory', 'memory', words(50), { source: 'memory:profile', relevance: 1, pinned: true, turn_number: 1 }));
  cm.add(scope, draft('p1', 'workspace', 'plan', words(60), { source: 'agent:planner', pinned: true, turn_number: 3 }));
  cm.add(scope, draft('e1', 'workspace', 'execution_result', words(40), { source: 'agent:executor', turn_number: 4 }));
}

const ids = (cm: ContextManager, scope = 'owner') => (['system', 'chronicle', 'memory', 'workspace'] as const).flatMap((zone) => cm.getZone(scope, zone).map((item) => item.ctx_id));

interface Harness {
  cm: ContextManager;
  eviction: ContextEviction;
  audit: Array<[string, Record<string, unknown>]>;
  calls: { count: number; signals: AbortSignal[]; prompts: string[] };
  events: (name: string) => Record<string, unknown>[];
}

/** A scorer whose model call is `call`; `null` means no scorer role is set up. */
function harness(call: StructuredCall | null, options: { breaker?: CircuitBreaker; timeoutMs?: number } = {}): Harness {
  const cm = manager();
  const audit: Harness['audit'] = [];
  const calls: Harness['calls'] = { count: 0, signals: [], prompts: [] };
  const counted: StructuredCall | null =
    call &&
    (async (prompt, note, callOptions) => {
      calls.count += 1;
      if (callOptions?.signal) calls.signals.push(callOptions.signal);
      calls.prompts.push(prompt.messages[0]!.content);
      return call(prompt, note, callOptions);
    });
  const scorer: ScorerSource = async (hooks) => (counted ? { scorer: createContextScorer(counted, hooks.audit) } : { scorer: null, problem: 'no model is set up for the scorer role' });
  const eviction = new ContextEviction({
    context: cm,
    counter,
    scorer,
    audit: { append: ((event: string, data: Record<string, unknown>) => void audit.push([event, data])) as never },
    now: () => FIXED_NOW,
    ...options,
  });
  return { cm, eviction, audit, calls, events: (name) => audit.filter(([event]) => event === name).map(([, data]) => data) };
}

const answer = (output: ScorerOutput): StructuredCall => async () => ({ rawText: JSON.stringify(output), object: output });
const groups = (...evict: string[][]): ScorerOutput => ({ keep_groups: [], evict_groups: evict.map((block_ids, i) => ({ reason: `group ${i + 1}`, block_ids })) });

afterEach(() => {
  vi.useRealTimers();
});

describe('Tier 2 without a scorer model: the deterministic aggressive heuristic (§5.7)', () => {
  it('evicts oldest chronicle, lowest-relevance memory and finished work until below the threshold; pinned, system and current-turn items stay', async () => {
    const h = harness(null);
    fill(h.cm);
    const result = await h.eviction.enforce({ scope: 'owner', turn: TURN });

    expect(result.evicted.map(({ item, reason }) => [item.ctx_id, reason])).toEqual([
      ['c1', 'aggressive_heuristic'],
      ['c2', 'aggressive_heuristic'],
      ['m1', 'aggressive_heuristic'],
      ['c3', 'aggressive_heuristic'],
      ['e1', 'aggressive_heuristic'],
      ['c4', 'aggressive_heuristic'],
    ]);
    expect(result.overThreshold).toBe(false);
    expect(h.cm.totalTokens('owner')).toBe(465);
    expect(ids(h.cm)).toEqual(expect.arrayContaining(['sys', 'c9', 'm3', 'p1']));
    // Each item is handed back whole, with its taint, for the Stream to store as an episode.
    expect(result.evicted.find(({ item }) => item.ctx_id === 'm1')!.item).toMatchObject({ taint: 'external', content: words(50) });
    expect(h.events('silas.stream.context_evicted')).toEqual([
      expect.objectContaining({ tier: 'fallback', scorer: 'not_configured', items: 6, tokens: 290, chronicle: 4, memory: 1, workspace: 1, over_threshold: false }),
    ]);
    expect(h.cm.lastEviction('owner')).toMatchObject({ turn: TURN, tier: 'fallback', items: expect.arrayContaining([expect.objectContaining({ ctx_id: 'c1', reason: 'aggressive_heuristic' })]) });
  });

  it('does nothing past Tier 1 while usage is not above the threshold', async () => {
    const h = harness(answer(groups(['c1'])));
    h.cm.add('owner', draft('c1', 'chronicle', 'message', words(50)));
    expect(await h.eviction.enforce({ scope: 'owner', turn: 2 })).toEqual({ evicted: [], masked: [], overThreshold: false });
    expect(h.calls.count).toBe(0);
    expect(h.audit).toEqual([]);
  });

  it('records the heuristic tier when Tier 1 alone evicts', async () => {
    const h = harness(null);
    // No system zone: the chronicle's budget is 450 of the 1000, and ten turns of 50 hold 500.
    for (let turn = 1; turn <= 10; turn += 1) h.cm.add('owner', draft(`c${turn}`, 'chronicle', 'message', words(50), { turn_number: turn }));
    const result = await h.eviction.enforce({ scope: 'owner', turn: 10 });
    expect(result.evicted.map(({ item, reason }) => [item.ctx_id, reason])).toEqual([['c1', 'zone_policy']]);
    expect(h.events('silas.stream.context_evicted')).toEqual([expect.objectContaining({ tier: 'heuristic', scorer: null, items: 1, chronicle: 1, reason: 'chronicle over budget (zone policy)' })]);
  });
});

describe('Tier 2 with the scorer model (§5.7, ADR-015)', () => {
  it('shows the scorer only what it may evict, with the goal and the last turns, and counts its call in the turn', async () => {
    const h = harness(answer(groups(['c1', 'c2'], ['m1', 'm2'], ['c3', 'c4'])));
    fill(h.cm);
    const meter: EvictionMeter = { countPrompt: vi.fn(), add: vi.fn() };
    await h.eviction.enforce({ scope: 'owner', turn: TURN, meter });
    const prompt = h.calls.prompts[0]!;
    for (const id of ['c1', 'c8', 'm1', 'm2', 'e1']) expect(prompt).toContain(`id=${id} `);
    for (const id of ['sys', 'c9', 'm3', 'p1']) expect(prompt).not.toContain(`id=${id} `);
    expect(prompt).toContain('Current goal: ');
    expect(prompt).toMatch(/Recent turns \(last 2-3\):\n- turn 7:/u);
    expect(meter.countPrompt).toHaveBeenCalledWith(expect.any(Number));
  });

  it('evicts whole groups in the order given and stops once below the threshold', async () => {
    const h = harness(answer(groups(['c1', 'c2'], ['m1', 'm2'], ['c3', 'c4'], ['c5'])));
    fill(h.cm);
    const result = await h.eviction.enforce({ scope: 'owner', turn: TURN });
    expect(result.evicted.map(({ item, reason }) => [item.ctx_id, reason])).toEqual([
      ['c1', 'scorer'],
      ['c2', 'scorer'],
      ['m1', 'scorer'],
      ['m2', 'scorer'],
      ['c3', 'scorer'],
      ['c4', 'scorer'],
    ]);
    expect(ids(h.cm)).toContain('c5');
    expect(h.events('silas.stream.context_evicted')).toEqual([
      expect.objectContaining({ tier: 'scorer', scorer: 'model', items: 6, tokens: 300, reason: 'scorer: group 1 / group 2 / group 3', over_threshold: false }),
    ]);
    expect(h.cm.lastEviction('owner')).toMatchObject({ tier: 'scorer', why: 'scorer: group 1 / group 2 / group 3' });
  });

  it('gives a scorer naming pinned, system, current-turn, unknown or kept ids nothing for them; the heuristic finishes and spares what it kept', async () => {
    const output: ScorerOutput = {
      keep_groups: [{ reason: 'the goal', block_ids: ['c1'] }],
      evict_groups: [{ reason: 'evict the constitution', block_ids: ['m3', 'sys', 'p1', 'c9', 'ctx-unknown', 'c1'] }],
    };
    const h = harness(answer(output));
    fill(h.cm);
    const result = await h.eviction.enforce({ scope: 'owner', turn: TURN });
    expect(ids(h.cm)).toEqual(expect.arrayContaining(['sys', 'm3', 'p1', 'c9', 'c1']));
    expect(result.evicted.every(({ reason }) => reason === 'aggressive_heuristic')).toBe(true);
    expect(result.overThreshold).toBe(false);
    expect(h.events('silas.stream.context_evicted')).toEqual([
      expect.objectContaining({ tier: 'scorer', scorer: 'model', items: 0, over_threshold: true }),
      expect.objectContaining({ tier: 'fallback', scorer: 'model', reason: "still above the threshold after the scorer's groups", over_threshold: false }),
    ]);
  });

  it('falls back to the heuristic tier when the answer is malformed twice', async () => {
    const h = harness(async () => ({ rawText: '{"evict": "everything"}' }));
    fill(h.cm);
    const result = await h.eviction.enforce({ scope: 'owner', turn: TURN });
    expect(h.calls.count).toBe(2);
    expect(result.evicted.map(({ item }) => item.ctx_id)).toEqual(['c1', 'c2', 'm1', 'c3', 'e1', 'c4']);
    expect(h.events('silas.agent.output_fallback')).toEqual([expect.objectContaining({ scope_id: 'owner', turn: TURN, agent: 'scorer', reason: 'schema_invalid_twice' })]);
    expect(h.events('silas.stream.context_evicted')).toEqual([
      expect.objectContaining({ tier: 'fallback', scorer: 'fallback', reason: "the scorer's answer did not match ScorerOutput twice" }),
    ]);
  });

  it('times out after 2 s: the call is aborted and the heuristic evicts', async () => {
    vi.useFakeTimers();
    const h = harness(
      (_prompt, _note, options) =>
        new Promise((_resolve, reject) => {
          options?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    fill(h.cm);
    let settled = false;
    const pending = h.eviction.enforce({ scope: 'owner', turn: TURN }).then((result) => ((settled = true), result));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const result = await pending;
    expect(h.calls.signals[0]!.aborted).toBe(true);
    expect(result.overThreshold).toBe(false);
    expect(h.events('silas.stream.context_evicted')).toEqual([expect.objectContaining({ tier: 'fallback', scorer: 'timeout', reason: 'the scorer did not answer within 2000 ms' })]);
  });

  it('a scorer model that cannot be set up is a scorer failure, never a failed turn', async () => {
    const cm = manager();
    fill(cm);
    const audit: string[] = [];
    const breaker = new CircuitBreaker({ clock: () => 0 });
    const eviction = new ContextEviction({
      context: cm,
      counter,
      scorer: async () => {
        throw new Error('the AI SDK could not be loaded');
      },
      audit: { append: ((event: string) => void audit.push(event)) as never },
      breaker,
      now: () => FIXED_NOW,
    });
    const result = await eviction.enforce({ scope: 'owner', turn: TURN });
    expect(result.overThreshold).toBe(false);
    expect(breaker.consecutiveFailures()).toBe(1);
    expect(audit).toEqual(['silas.stream.context_evicted']);
  });

  it('a cancelled turn stops the scorer, is no scorer failure, and still hands back what was evicted', async () => {
    const turn = new AbortController();
    const breaker = new CircuitBreaker({ clock: () => 0 });
    const h = harness(
      (_prompt, _note, options) =>
        new Promise((_resolve, reject) => {
          options?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
          turn.abort();
        }),
      { breaker },
    );
    fill(h.cm);
    const result = await h.eviction.enforce({ scope: 'owner', turn: TURN, signal: turn.signal });
    expect(result.evicted.length).toBeGreaterThan(0);
    expect(breaker.consecutiveFailures()).toBe(0);
    expect(h.events('silas.stream.context_evicted')).toEqual([expect.objectContaining({ tier: 'fallback', scorer: 'cancelled' })]);
  });
});

describe("the scorer's circuit breaker (§5.7: 3 failures, 5 minutes)", () => {
  it('opens after 3 consecutive failures, skips the model while open, and closes on an answer after the cool-down', async () => {
    let now = 0;
    let healthy = false;
    const breaker = new CircuitBreaker({ clock: () => now });
    const h = harness(async (prompt) => {
      if (!healthy) throw new Error('provider down');
      const first = /id=(\S+) /u.exec(prompt.messages[0]!.content)![1]!;
      return { rawText: '', object: groups([first]) };
    }, { breaker });
    const run = async (scope: string) => {
      fill(h.cm, scope);
      return h.eviction.enforce({ scope, turn: TURN });
    };

    for (const scope of ['a', 'b', 'c']) await run(scope);
    expect(h.calls.count).toBe(3);
    expect(h.events('silas.stream.scorer_breaker')).toEqual([{ scope_id: 'c', turn: TURN, state: 'open', failures: 3, cooldown_ms: 300_000 }]);

    now = 299_999;
    await run('d');
    expect(h.calls.count).toBe(3);
    expect(h.events('silas.stream.context_evicted').at(-1)).toMatchObject({ scope_id: 'd', tier: 'fallback', scorer: 'breaker_open' });

    now = 300_000;
    healthy = true;
    const result = await run('e');
    expect(h.calls.count).toBe(4);
    expect(result.evicted[0]!.reason).toBe('scorer');
    expect(breaker.state()).toBe('closed');
    expect(h.events('silas.stream.scorer_breaker').at(-1)).toMatchObject({ scope_id: 'e', state: 'closed' });
  });

  it('counts fallbacks and timeouts as failures, and an answer resets the count', async () => {
    const breaker = new CircuitBreaker({ clock: () => 0 });
    let reply: 'bad' | 'good' = 'bad';
    const h = harness(async () => (reply === 'bad' ? { rawText: 'no' } : { rawText: '', object: groups() }), { breaker });
    fill(h.cm, 'a');
    await h.eviction.enforce({ scope: 'a', turn: TURN });
    fill(h.cm, 'b');
    await h.eviction.enforce({ scope: 'b', turn: TURN });
    expect(breaker.consecutiveFailures()).toBe(2);
    reply = 'good';
    fill(h.cm, 'c');
    await h.eviction.enforce({ scope: 'c', turn: TURN });
    expect(breaker.consecutiveFailures()).toBe(0);
    expect(breaker.state()).toBe('closed');
  });
});
