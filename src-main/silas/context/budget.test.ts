import { describe, expect, it } from 'vitest';
import { TokenBudget } from '../../../src-shared/silas/context.js';
import { findProfile, zoneBudgets } from './budget.js';

describe('zoneBudgets (§3.5 headroom math)', () => {
  const budget = TokenBudget.parse({});
  const conversation = findProfile(budget, 'conversation')!;

  it('computes zone budgets against the allocable budget', () => {
    expect(zoneBudgets(budget, conversation, 8_000)).toEqual({
      systemActual: 8_000,
      allocable: 172_000,
      zones: { chronicle: 77_400, memory: 34_400, workspace: 25_800 },
      headroom: 34_400,
    });
  });

  it('counts the system zone only up to system_max', () => {
    expect(zoneBudgets(budget, conversation, 50_000).systemActual).toBe(8_000);
    expect(zoneBudgets(budget, conversation, 0).allocable).toBe(180_000);
  });

  it('floors each share and never goes below zero', () => {
    const tiny = TokenBudget.parse({ total: 10, system_max: 10 });
    expect(zoneBudgets(tiny, conversation, 10)).toEqual({ systemActual: 10, allocable: 0, zones: { chronicle: 0, memory: 0, workspace: 0 }, headroom: 0 });
    const odd = TokenBudget.parse({ total: 1_001, system_max: 0 });
    expect(zoneBudgets(odd, conversation, 0).zones).toEqual({ chronicle: 450, memory: 200, workspace: 150 });
  });

  it('keeps at least 20% of the allocable budget as headroom under every default profile', () => {
    for (const profile of Object.values(budget.profiles)) {
      const result = zoneBudgets(budget, profile, 3_000);
      expect(result.headroom).toBeGreaterThanOrEqual(Math.floor(result.allocable * 0.2));
    }
  });

  it('finds profiles by key only', () => {
    expect(findProfile(budget, 'coding')?.workspace_pct).toBe(0.4);
    expect(findProfile(budget, 'toString')).toBeUndefined();
    expect(findProfile(budget, 'missing')).toBeUndefined();
  });
});
