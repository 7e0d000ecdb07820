import { describe, expect, it } from 'vitest';
import { isSilasError } from '../../../src-shared/errors.js';
import { ContextErrorCode, TokenBudget, type TokenBudgetInput } from '../../../src-shared/silas/context.js';
import { ContextManager, type ContextManagerDeps } from './context-manager.js';
import { toolResultSource } from './eviction.js';
import { FIXED_NOW, FakeTokenCounter, draft, words } from './testing/context.js';
import { HeuristicTokenCounter } from './token-counter.js';

/**
 * With the FakeTokenCounter a budget of total 1000 / system_max 100 and the conversation profile
 * gives, with 100 system tokens: allocable 900, chronicle 405, memory 180, workspace 135.
 */
function manager(budget: TokenBudgetInput = { total: 1_000, system_max: 100 }, deps: Partial<ContextManagerDeps> = {}): ContextManager {
  let id = 0;
  return new ContextManager({
    counter: new FakeTokenCounter(),
    budget: TokenBudget.parse(budget),
    clock: () => FIXED_NOW,
    newId: () => `gen-${(id += 1)}`,
    ...deps,
  });
}

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isSilasError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an error');
}

const tool = (id: string, turn: number, n: number, outcome: 'succeeded' | 'failed' = 'succeeded') =>
  draft(id, 'chronicle', 'tool_result', words(n), { turn_number: turn, source: toolResultSource('shell_exec', outcome), taint: 'external' });

describe('ContextManager: adding items', () => {
  it('counts every item with its counter, ignoring a count the caller supplies', () => {
    const cm = manager();
    cm.add('owner', { ...draft('a', 'chronicle', 'message', words(7)), token_count: 1 });
    expect(cm.getZone('owner', 'chronicle')[0]!.token_count).toBe(7);
    expect(cm.tokenUsage('owner')).toEqual({ system: 0, chronicle: 7, memory: 0, workspace: 0 });
  });

  it('fills ctx_id, created_at and the spec defaults, and returns the ctx_id', () => {
    const cm = manager();
    const { ctx_id: _unused, ...rest } = draft('x', 'memory', 'memory', 'remembered', { source: 'memory:profile' });
    expect(cm.add('owner', rest)).toBe('gen-1');
    expect(cm.getZone('owner', 'memory')).toEqual([
      {
        ctx_id: 'gen-1',
        zone: 'memory',
        content: 'remembered',
        token_count: 1,
        created_at: '2026-01-15T10:00:00.000Z',
        turn_number: 1,
        source: 'memory:profile',
        taint: 'owner',
        kind: 'memory',
        relevance: 1,
        masked: false,
        pinned: false,
      },
    ]);
  });

  it('refuses an invalid item with a message naming the field', () => {
    const cm = manager();
    expect(errorOf(() => cm.add('owner', draft('a', 'chronicle', 'message', 'x', { source: 'a|b' })))).toMatchObject({
      code: ContextErrorCode.Invalid,
      message: expect.stringContaining('context item source'),
    });
    expect(errorOf(() => cm.add('owner', { ...draft('a', 'chronicle', 'message', 'x'), created_at: '2026-01-15T10:00:00+02:00' })).code).toBe(
      ContextErrorCode.Invalid,
    );
    expect(errorOf(() => cm.add('', draft('a', 'chronicle', 'message', 'x'))).code).toBe(ContextErrorCode.Invalid);
  });

  it('refuses a tool result whose source does not name the tool and its outcome', () => {
    const cm = manager();
    const error = errorOf(() => cm.add('owner', draft('t', 'chronicle', 'tool_result', 'out', { source: 'tool:shell_exec' })));
    expect(error.code).toBe(ContextErrorCode.Invalid);
    expect(error.message).toContain('tool:<name>:succeeded');
  });

  it('refuses a second item with the same ctx_id in a scope', () => {
    const cm = manager();
    cm.add('owner', draft('a', 'chronicle', 'message', 'one'));
    expect(errorOf(() => cm.add('owner', draft('a', 'memory', 'memory', 'two'))).code).toBe(ContextErrorCode.Duplicate);
  });

  it('drops items by ctx_id and gives their tokens back', () => {
    const cm = manager();
    cm.add('owner', draft('a', 'chronicle', 'message', words(5)));
    expect(cm.drop('owner', 'a')).toBe(true);
    expect(cm.drop('owner', 'a')).toBe(false);
    expect(cm.drop('nobody', 'a')).toBe(false);
    expect(cm.tokenUsage('owner').chronicle).toBe(0);
  });

  it('hands out frozen items, so a caller cannot change the context behind the manager', () => {
    const cm = manager();
    cm.add('owner', draft('a', 'chronicle', 'message', 'hello'));
    const [item] = cm.getZone('owner', 'chronicle');
    expect(Object.isFrozen(item)).toBe(true);
  });
});

describe('ContextManager: oversized single items (refused, never truncated)', () => {
  it('holds the system zone to system_max for all its items together', () => {
    const cm = manager();
    cm.add('owner', draft('s1', 'system', 'system', words(60), { source: 'system:constitution' }));
    const error = errorOf(() => cm.add('owner', draft('s2', 'system', 'system', words(41), { source: 'system:tools' })));
    expect(error.code).toBe(ContextErrorCode.ItemTooLarge);
    expect(error.message).toBe(
      'system item "s2" (41 tokens) would bring the system zone of scope "owner" to 101 tokens, over system_max (100); shorten it, drop another system item, or raise context.system_max',
    );
    cm.add('owner', draft('s3', 'system', 'system', words(40), { source: 'system:tools' }));
    expect(cm.tokenUsage('owner').system).toBe(100);
  });

  it('refuses an item larger than its whole zone under the scope profile, and accepts one that fills it', () => {
    const cm = manager();
    cm.add('owner', draft('s', 'system', 'system', words(100), { source: 'system:constitution' }));
    const error = errorOf(() => cm.add('owner', draft('big', 'chronicle', 'message', words(406))));
    expect(error.code).toBe(ContextErrorCode.ItemTooLarge);
    expect(error.message).toContain('message "big" (406 tokens) is larger than the whole chronicle zone of scope "owner" (405 tokens under profile "conversation")');
    expect(cm.getZone('owner', 'chronicle')).toEqual([]);
    cm.add('owner', draft('fits', 'chronicle', 'message', words(405)));
    cm.setProfile('owner', 'coding');
    expect(errorOf(() => cm.add('owner', draft('w', 'workspace', 'plan', words(361)))).code).toBe(ContextErrorCode.ItemTooLarge);
    cm.add('owner', draft('w', 'workspace', 'plan', words(360)));
  });
});

describe('ContextManager: render', () => {
  function filled(): ContextManager {
    const cm = manager();
    // Added out of zone order: render must still follow system → chronicle → memory → workspace.
    cm.add('owner', draft('plan', 'workspace', 'plan', 'Step 1: fix the payment module', { source: 'agent:planner', turn_number: 14 }));
    cm.add('owner', draft('mem', 'memory', 'memory', 'We fixed the auth module with a middleware', { source: 'memory:episode', relevance: 0.7 }));
    cm.add('owner', draft('u14', 'chronicle', 'message', '[owner] alice: Apply the same fix pattern to the payment module', { turn_number: 14 }));
    cm.add('owner', draft('sys', 'system', 'system', 'You are Silas.', { source: 'system:constitution' }));
    cm.add('owner', draft('r14', 'chronicle', 'message', 'Silas: On it.', { turn_number: 14, source: 'agent:proxy' }));
    return cm;
  }

  it('renders the zones in the spec order with stable block formatting', () => {
    expect(filled().render('owner', 14)).toBe(
      [
        '--- system | system:constitution ---\nYou are Silas.\n--- end ---',
        '--- turn 14 | user | live ---\n[owner] alice: Apply the same fix pattern to the payment module\n--- end ---',
        '--- turn 14 | silas | live ---\nSilas: On it.\n--- end ---',
        '--- memory | 2026-01-15 | memory:episode ---\nWe fixed the auth module with a middleware\n--- end ---',
        '--- plan | turn 14 | agent:planner | live ---\nStep 1: fix the payment module\n--- end ---',
      ].join('\n\n'),
    );
  });

  it('renders the same bytes every time and for the same history', () => {
    const first = filled().render('owner', 14);
    const again = filled();
    expect(again.render('owner', 14)).toBe(first);
    expect(again.render('owner', 14)).toBe(first);
  });

  it('gives one section per non-empty zone, joined exactly as render', () => {
    const cm = filled();
    const sections = cm.renderSections('owner', 14);
    expect(sections.map((s) => s.zone)).toEqual(['system', 'chronicle', 'memory', 'workspace']);
    expect(sections.map((s) => s.text).join('\n\n')).toBe(cm.render('owner', 14));
    cm.drop('owner', 'mem');
    expect(cm.renderSections('owner', 14).map((s) => s.zone)).toEqual(['system', 'chronicle', 'workspace']);
  });

  it('masks tool results past observation_mask_after_turns when rendering, whatever the budget', () => {
    const cm = manager();
    cm.add('owner', tool('old', 2, 30, 'failed'));
    cm.add('owner', tool('recent', 3, 30));
    const text = cm.render('owner', 8);
    expect(text).toContain('--- tool_result | turn 2 | masked ---\n[Result of shell_exec (FAILED) — 30 tokens — see memory for details]\n--- end ---');
    expect(text).toContain(`--- tool_result | turn 3 | live ---\n${words(30)}\n--- end ---`);
    const old = cm.getZone('owner', 'chronicle')[0]!;
    expect(old).toMatchObject({ masked: true, token_count: 12, content: '[Result of shell_exec (FAILED) — 30 tokens — see memory for details]' });
    expect(cm.tokenUsage('owner').chronicle).toBe(12 + 30);
  });

  it('renders an unknown scope as empty text', () => {
    expect(manager().render('nobody', 1)).toBe('');
  });
});

describe('ContextManager: budgets and the heuristic eviction tier', () => {
  it('reports the §3.5 budgets of the scope profile', () => {
    const cm = manager();
    cm.add('owner', draft('s', 'system', 'system', words(100), { source: 'system:constitution' }));
    expect(cm.budgets('owner')).toEqual({ systemActual: 100, allocable: 900, zones: { chronicle: 405, memory: 180, workspace: 135 }, headroom: 180 });
    cm.setProfile('owner', 'research');
    expect(cm.budgets('owner').zones).toEqual({ chronicle: 180, memory: 360, workspace: 180 });
    expect(errorOf(() => cm.setProfile('owner', 'gaming'))).toEqual({
      code: ContextErrorCode.UnknownProfile,
      message: 'context profile "gaming" is not defined; use one of conversation, coding, research, support or add it to context.profiles',
    });
  });

  it('does nothing but mask when every zone is within budget (acknowledgements stay)', () => {
    const cm = manager();
    cm.add('owner', draft('ack', 'chronicle', 'message', '[owner] alice: thanks!', { turn_number: 1 }));
    cm.add('owner', tool('t', 1, 10));
    const result = cm.enforceBudget('owner', 10);
    expect(result).toEqual({ evicted: [], masked: ['t'], overBudget: [], overThreshold: false });
    expect(cm.getZone('owner', 'chronicle').map((i) => i.ctx_id)).toEqual(['ack', 't']);
  });

  it('masks first, then drops trivial acknowledgements, then evicts oldest-first until the chronicle fits', () => {
    const cm = manager({ total: 100, system_max: 0 }); // chronicle budget 45
    cm.add('owner', tool('t1', 1, 40)); // masked to 12 tokens at turn 10
    cm.add('owner', draft('m2', 'chronicle', 'message', `[owner] alice: ${words(10)}`, { turn_number: 2 })); // 12
    cm.add('owner', draft('ack3', 'chronicle', 'message', '[owner] alice: ok', { turn_number: 3 })); // 3
    cm.add('owner', draft('m9', 'chronicle', 'message', `Silas: ${words(20)}`, { turn_number: 9, source: 'agent:proxy' })); // 21
    cm.add('owner', draft('ack10', 'chronicle', 'message', '[owner] alice: yes', { turn_number: 10 })); // 3, current turn
    expect(cm.tokenUsage('owner').chronicle).toBe(79);

    const result = cm.enforceBudget('owner', 10);
    expect(result.masked).toEqual(['t1']);
    expect(result.evicted.map((e) => [e.item.ctx_id, e.reason])).toEqual([
      ['ack3', 'trivial_acknowledgement'],
      ['t1', 'zone_policy'],
    ]);
    expect(result.evicted[1]!.item.masked).toBe(true);
    expect(cm.getZone('owner', 'chronicle').map((i) => i.ctx_id)).toEqual(['m2', 'm9', 'ack10']);
    expect(cm.tokenUsage('owner').chronicle).toBe(36);
    expect(result.overBudget).toEqual([]);
  });

  it('evicts the least relevant memories and completed work first, never pinned items', () => {
    const cm = manager({ total: 100, system_max: 0 }); // memory 20, workspace 15
    cm.add('owner', draft('profile', 'memory', 'memory', words(10), { pinned: true, relevance: 0 }));
    cm.add('owner', draft('hi', 'memory', 'memory', words(6), { relevance: 0.9 }));
    cm.add('owner', draft('lo', 'memory', 'memory', words(6), { relevance: 0.1 }));
    cm.add('owner', draft('plan', 'workspace', 'plan', words(8)));
    cm.add('owner', draft('done', 'workspace', 'execution_result', words(8), { turn_number: 2 }));
    const result = cm.enforceBudget('owner', 3);
    expect(result.evicted.map((e) => e.item.ctx_id)).toEqual(['lo', 'done']);
    expect(cm.getZone('owner', 'memory').map((i) => i.ctx_id)).toEqual(['profile', 'hi']);
    expect(cm.getZone('owner', 'workspace').map((i) => i.ctx_id)).toEqual(['plan']);
  });

  it('evicts to fit after a profile switch shrinks a zone, and reports zones only pinned items keep over budget', () => {
    const cm = manager({ total: 100, system_max: 0 });
    cm.setProfile('owner', 'coding'); // workspace 40
    cm.add('owner', draft('a', 'workspace', 'plan', words(10), { pinned: true }));
    cm.add('owner', draft('b', 'workspace', 'plan', words(10), { pinned: true }));
    cm.add('owner', draft('c', 'workspace', 'plan', words(10)));
    expect(cm.enforceBudget('owner', 1)).toMatchObject({ evicted: [], overBudget: [] });
    cm.setProfile('owner', 'conversation'); // workspace 15
    const result = cm.enforceBudget('owner', 1);
    expect(result.evicted.map((e) => e.item.ctx_id)).toEqual(['c']);
    expect(result.overBudget).toEqual(['workspace']);
    expect(cm.tokenUsage('owner').workspace).toBe(20);
  });

  it('says when total usage stays above eviction_threshold_pct (the scorer tier cue)', () => {
    const cm = manager({ total: 100, system_max: 90 }); // allocable 10 once the system zone is full
    cm.add('owner', draft('s', 'system', 'system', words(85), { source: 'system:constitution' }));
    expect(cm.enforceBudget('owner', 1).overThreshold).toBe(true);
    expect(manager().enforceBudget('nobody', 1)).toEqual({ evicted: [], masked: [], overBudget: [], overThreshold: false });
  });

  it('uses a configured acknowledgement pattern', () => {
    const cm = manager({ total: 20, system_max: 0 }, { trivialAckPattern: /^(merci|d'accord)$/i });
    cm.add('owner', draft('fr', 'chronicle', 'message', '[owner] amélie: Merci', { turn_number: 1 }));
    cm.add('owner', draft('en', 'chronicle', 'message', '[owner] amélie: ok', { turn_number: 1 }));
    cm.add('owner', draft('pad', 'chronicle', 'message', words(5), { turn_number: 2 })); // 11 tokens against a chronicle of 9
    const result = cm.enforceBudget('owner', 2);
    expect(result.evicted.map((e) => [e.item.ctx_id, e.reason])).toEqual([['fr', 'trivial_acknowledgement']]);
  });
});

describe('ContextManager: scope isolation (§4.3)', () => {
  it('never shows one connection’s items to another', () => {
    const cm = manager();
    cm.add('conn-a', draft('m1', 'chronicle', 'message', '[auth] alice: my policy number is A-1'));
    cm.add('conn-a', draft('mem', 'memory', 'memory', 'alice prefers email', { source: 'memory:profile' }));
    cm.add('conn-b', draft('m1', 'chronicle', 'message', '[external] bob: hello'));

    const a = cm.render('conn-a', 1);
    const b = cm.render('conn-b', 1);
    expect(a).toContain('A-1');
    expect(a).toContain('alice prefers email');
    expect(a).not.toContain('bob');
    expect(b).toContain('bob');
    expect(b).not.toContain('alice');
    expect(cm.getZone('conn-b', 'memory')).toEqual([]);
    expect(cm.tokenUsage('conn-b')).toEqual({ system: 0, chronicle: 3, memory: 0, workspace: 0 });
  });

  it('keeps drops, profiles, masking and eviction within their scope', () => {
    const cm = manager({ total: 100, system_max: 0 });
    cm.add('conn-a', tool('t', 1, 10));
    cm.add('conn-b', tool('t', 1, 10));
    cm.add('conn-b', draft('x', 'workspace', 'plan', words(12)));
    cm.drop('conn-a', 'x');
    cm.setProfile('conn-a', 'research');
    expect(cm.profile('conn-b').name).toBe('conversation');
    expect(cm.enforceBudget('conn-a', 20).masked).toEqual(['t']);
    expect(cm.getZone('conn-b', 'chronicle')[0]!.masked).toBe(false);
    expect(cm.getZone('conn-b', 'workspace').map((i) => i.ctx_id)).toEqual(['x']);
    cm.removeScope('conn-a');
    expect(cm.render('conn-a', 20)).toBe('');
    expect(cm.getZone('conn-b', 'chronicle')).toHaveLength(1);
  });
});

describe('ContextManager with the §5.13 counter', () => {
  it('sizes items by characters ÷ 3.5', () => {
    const cm = manager({}, { counter: new HeuristicTokenCounter() });
    cm.add('owner', draft('a', 'chronicle', 'message', 'x'.repeat(350)));
    cm.add('owner', draft('b', 'chronicle', 'message', '👍'.repeat(7)));
    expect(cm.getZone('owner', 'chronicle').map((i) => i.token_count)).toEqual([100, 2]);
  });
});

describe('ContextManager: evict (Tier 2 of §5.7)', () => {
  it('removes and returns an evictable item, and refuses system-zone and pinned items whoever names them', () => {
    const cm = manager();
    cm.add('owner', draft('sys', 'system', 'system', words(10), { pinned: true }));
    cm.add('owner', draft('profile', 'memory', 'memory', words(10), { pinned: true }));
    cm.add('owner', draft('c1', 'chronicle', 'message', words(10)));
    expect(cm.evict('owner', 'sys')).toBeNull();
    expect(cm.evict('owner', 'profile')).toBeNull();
    expect(cm.evict('owner', 'unknown')).toBeNull();
    expect(cm.evict('other-scope', 'c1')).toBeNull();
    expect(cm.evict('owner', 'c1')).toMatchObject({ ctx_id: 'c1', token_count: 10 });
    expect(cm.getZone('owner', 'chronicle')).toEqual([]);
    expect(cm.totalTokens('owner')).toBe(20);
  });
});
