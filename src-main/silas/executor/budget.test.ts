import { describe, expect, it } from 'vitest';
import { Budget, budgetExceeds, emptyBudgetUsed, formatBudgetUsage, mergeBudgetUsed } from '../../../src-shared/silas/work.js';
import { BudgetTracker } from './budget.js';

const budget = (patch: Partial<Budget> = {}) => Budget.parse({ max_tokens: 1000, max_cost_usd: 1, max_wall_time_seconds: 60, max_attempts: 3, max_planner_calls: 2, ...patch });

function clock(start = 0) {
  const state = { ms: start };
  return { now: () => new Date(state.ms), advance: (seconds: number) => (state.ms += seconds * 1000) };
}

describe('budget tracking (§14 unit row)', () => {
  it('counts reaching a limit exactly as exhausted (>=), for every limit', () => {
    const limits = budget();
    expect(budgetExceeds({ ...emptyBudgetUsed(), tokens: 999 }, limits)).toBe(false);
    expect(budgetExceeds({ ...emptyBudgetUsed(), tokens: 1000 }, limits)).toBe(true);
    expect(budgetExceeds({ ...emptyBudgetUsed(), cost_usd: 1 }, limits)).toBe(true);
    expect(budgetExceeds({ ...emptyBudgetUsed(), wall_time_seconds: 60 }, limits)).toBe(true);
    expect(budgetExceeds({ ...emptyBudgetUsed(), attempts: 3 }, limits)).toBe(true);
    expect(budgetExceeds({ ...emptyBudgetUsed(), planner_calls: 2 }, limits)).toBe(true);
    // executor_runs has no limit.
    expect(budgetExceeds({ ...emptyBudgetUsed(), executor_runs: 1_000_000 }, limits)).toBe(false);
  });

  it('merge() aggregates every field, attempts and executor_runs included', () => {
    const a = { tokens: 1, cost_usd: 0.5, wall_time_seconds: 2, attempts: 1, planner_calls: 1, executor_runs: 3 };
    const b = { tokens: 10, cost_usd: 0.25, wall_time_seconds: 3, attempts: 2, planner_calls: 0, executor_runs: 4 };
    expect(mergeBudgetUsed(a, b)).toEqual({ tokens: 11, cost_usd: 0.75, wall_time_seconds: 5, attempts: 3, planner_calls: 1, executor_runs: 7 });
    expect(a.tokens).toBe(1);
  });

  it('formats usage against the limits for display', () => {
    expect(formatBudgetUsage({ ...emptyBudgetUsed(), tokens: 1200, attempts: 1 }, budget({ max_tokens: 200_000 }))).toBe(
      'tokens 1,200/200,000 · cost $0.00/$1.00 · time 0s/60s · attempts 1/3 · planner calls 0/2',
    );
  });

  it('gates each action by the limits that count it', () => {
    const c = clock();
    const tracker = new BudgetTracker(budget(), emptyBudgetUsed(), c.now);
    tracker.charge({ attempts: 3 });
    // The last allowed attempt may still run its tool calls; a fourth attempt may not start.
    expect(tracker.exhausted('action')).toEqual([]);
    expect(tracker.exhausted('attempt')).toEqual(['max_attempts']);
    tracker.charge({ planner_calls: 2 });
    expect(tracker.exhausted('planner')).toEqual(['max_planner_calls']);
    expect(tracker.exhausted('action')).toEqual([]);
    tracker.charge({ tokens: 1000 });
    expect(tracker.exhausted('action')).toEqual(['max_tokens']);
    expect(tracker.describe(['max_tokens'])).toBe('budget exhausted: max_tokens (1000 tokens of 1000)');
  });

  it('measures wall time from its clock, reports the stored consumption plus its own, and gates only its own', () => {
    const c = clock(1_000_000);
    // A re-run under a new approval: the item's history is at every limit already.
    const history = { tokens: 1000, cost_usd: 1, wall_time_seconds: 60, attempts: 3, planner_calls: 2, executor_runs: 4 };
    const tracker = new BudgetTracker(budget(), history, c.now);
    expect(tracker.exhausted('attempt')).toEqual([]);
    c.advance(59);
    tracker.charge({ tokens: 5, attempts: 1 });
    expect(tracker.used).toMatchObject({ wall_time_seconds: 119, tokens: 1005, attempts: 4 });
    expect(tracker.delta).toMatchObject({ wall_time_seconds: 59, tokens: 5, attempts: 1 });
    expect(tracker.remainingWallSeconds()).toBe(1);
    expect(tracker.exhausted('action')).toEqual([]);
    c.advance(1);
    expect(tracker.exhausted('action')).toEqual(['max_wall_time_seconds']);
    expect(tracker.describe(['max_wall_time_seconds'])).toBe('budget exhausted: max_wall_time_seconds (60.0s of 60s wall time)');
  });

  it('refuses negative, non-finite and fractional counts, so an agent cannot buy budget', () => {
    const tracker = new BudgetTracker(budget(), emptyBudgetUsed(), clock().now);
    expect(() => tracker.charge({ tokens: -1000 })).toThrow(/tokens: expected a finite number >= 0/);
    expect(() => tracker.charge({ cost_usd: Number.NaN })).toThrow(/cost_usd/);
    expect(() => tracker.charge({ tokens: 1.5 })).toThrow(/whole number/);
    tracker.charge({ cost_usd: 0.25 });
    expect(tracker.used.cost_usd).toBe(0.25);
  });
});
