import { describe, expect, it } from 'vitest';
import { ContextItem, ContextProfile, ContextZone, DEFAULT_CONTEXT_PROFILES, TokenBudget, ZONE_ORDER } from './context.js';

const problems = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }): string[] =>
  result.success ? [] : result.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

const item = {
  ctx_id: 'ctx-1',
  zone: 'chronicle',
  content: '[owner] alice: hello',
  token_count: 5,
  created_at: '2026-01-15T10:00:00.000Z',
  turn_number: 14,
  source: 'channel:web',
  taint: 'owner',
  kind: 'message',
};

describe('ContextZone', () => {
  it('has the four zones of §3.5 in render order', () => {
    expect(ContextZone.options).toEqual(['system', 'chronicle', 'memory', 'workspace']);
    expect(ZONE_ORDER).toEqual(ContextZone.options);
  });
});

describe('ContextItem', () => {
  it('fills relevance 1.0 and unmasked, unpinned', () => {
    expect(ContextItem.parse(item)).toEqual({ ...item, relevance: 1, masked: false, pinned: false });
  });

  it('refuses unknown fields, kinds and taints', () => {
    expect(problems(ContextItem.safeParse({ ...item, extra: 1 }))).toHaveLength(1);
    expect(problems(ContextItem.safeParse({ ...item, kind: 'note' }))[0]).toMatch(/^kind:/);
    expect(problems(ContextItem.safeParse({ ...item, taint: 'trusted' }))[0]).toMatch(/^taint:/);
  });

  it('accepts only timezone-aware UTC instants', () => {
    expect(problems(ContextItem.safeParse({ ...item, created_at: '2026-01-15T10:00:00' }))[0]).toMatch(/^created_at:/);
    expect(problems(ContextItem.safeParse({ ...item, created_at: '2026-01-15T12:00:00+02:00' }))[0]).toMatch(/^created_at:/);
  });

  it('keeps labels out of header syntax', () => {
    for (const source of ['a|b', 'line\nbreak', '', 'tab\there']) {
      expect(problems(ContextItem.safeParse({ ...item, source }))[0]).toMatch(/^source:/);
    }
    expect(problems(ContextItem.safeParse({ ...item, ctx_id: 'x|y' }))[0]).toMatch(/^ctx_id:/);
  });

  it('refuses negative or fractional counts and turns', () => {
    expect(problems(ContextItem.safeParse({ ...item, token_count: -1 }))).toHaveLength(1);
    expect(problems(ContextItem.safeParse({ ...item, turn_number: 1.5 }))).toHaveLength(1);
  });
});

describe('ContextProfile', () => {
  it('accepts shares summing to exactly 0.80, including inexact binary sums', () => {
    expect(ContextProfile.safeParse(DEFAULT_CONTEXT_PROFILES.conversation).success).toBe(true);
    expect(0.07 + 0.56 + 0.17).toBeGreaterThan(0.8);
    expect(ContextProfile.safeParse({ name: 'p', chronicle_pct: 0.07, memory_pct: 0.56, workspace_pct: 0.17 }).success).toBe(true);
  });

  it('refuses more than 0.80 together and any share outside 0..1', () => {
    expect(problems(ContextProfile.safeParse({ name: 'p', chronicle_pct: 0.5, memory_pct: 0.2, workspace_pct: 0.11 }))).toEqual([
      ': chronicle_pct + memory_pct + workspace_pct is 0.81; it must be at most 0.8 (20% of the allocable budget stays headroom)',
    ]);
    expect(problems(ContextProfile.safeParse({ name: 'p', chronicle_pct: -0.1, memory_pct: 0.2, workspace_pct: 0.1 }))[0]).toMatch(/^chronicle_pct:/);
    expect(problems(ContextProfile.safeParse({ name: 'p', chronicle_pct: 1.1, memory_pct: 0, workspace_pct: 0 })).length).toBeGreaterThan(0);
  });
});

describe('TokenBudget', () => {
  it('has the defaults of §3.5 and the profiles of §11', () => {
    expect(TokenBudget.parse({})).toEqual({
      total: 180_000,
      system_max: 8_000,
      skill_metadata_budget_pct: 0.02,
      eviction_threshold_pct: 0.8,
      scorer_threshold_pct: 0.9,
      max_subscription_tokens: 2_000,
      subscription_ttl_turns: 10,
      observation_mask_after_turns: 5,
      profiles: {
        conversation: { name: 'conversation', chronicle_pct: 0.45, memory_pct: 0.2, workspace_pct: 0.15 },
        coding: { name: 'coding', chronicle_pct: 0.2, memory_pct: 0.2, workspace_pct: 0.4 },
        research: { name: 'research', chronicle_pct: 0.2, memory_pct: 0.4, workspace_pct: 0.2 },
        support: { name: 'support', chronicle_pct: 0.4, memory_pct: 0.25, workspace_pct: 0.15 },
      },
      default_profile: 'conversation',
    });
  });

  it('reads profiles as config writes them (keyed by name) and names them by their key', () => {
    const budget = TokenBudget.parse({ profiles: { chat: { chronicle_pct: 0.6, memory_pct: 0.1, workspace_pct: 0.1 } }, default_profile: 'chat' });
    expect(budget.profiles).toEqual({ chat: { name: 'chat', chronicle_pct: 0.6, memory_pct: 0.1, workspace_pct: 0.1 } });
    expect(problems(TokenBudget.safeParse({ profiles: { chat: { name: 'talk', chronicle_pct: 0, memory_pct: 0, workspace_pct: 0 } }, default_profile: 'chat' }))).toEqual([
      'profiles.chat.name: profile "chat" is named "talk"; the name must equal its key',
    ]);
  });

  it('refuses a default profile that is not defined, a system cap over the total, and the §11 start-up limits', () => {
    expect(problems(TokenBudget.safeParse({ default_profile: 'gaming' }))).toEqual([
      'default_profile: default_profile "gaming" is not one of the profiles (conversation, coding, research, support)',
    ]);
    expect(problems(TokenBudget.safeParse({ total: 1_000, system_max: 2_000 }))).toEqual(['system_max: system_max (2000) must not exceed total (1000)']);
    expect(problems(TokenBudget.safeParse({ skill_metadata_budget_pct: 0.2 }))).toEqual(['skill_metadata_budget_pct: skill_metadata_budget_pct must be at most 0.10']);
    expect(problems(TokenBudget.safeParse({ profiles: { p: { chronicle_pct: 0.5, memory_pct: 0.5, workspace_pct: 0 } }, default_profile: 'p' }))[0]).toMatch(
      /^profiles\.p: .* at most 0\.8/,
    );
    expect(problems(TokenBudget.safeParse({ total_tokens: 1 }))).toHaveLength(1);
  });
});
