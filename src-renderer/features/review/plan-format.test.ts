import { describe, expect, it } from 'vitest';
import { budgetSummary, formatDuration, formatUsd, gatesText } from './plan-format.js';

describe('plan details text', () => {
  it('words durations, amounts and the budget', () => {
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(1800)).toBe('30 min');
    expect(formatDuration(5400)).toBe('1 h 30 min');
    expect(formatDuration(3600)).toBe('1 h');
    expect(formatDuration(3661)).toBe('1 h 1 min 1 s');
    expect(formatUsd(2)).toBe('$2.00');
    expect(formatUsd(0.005)).toBe('$0.005');
    expect(budgetSummary({ max_tokens: 1, max_cost_usd: 0.5, max_wall_time_seconds: 90, max_attempts: 1, max_planner_calls: 1 })).toBe(
      'at most $0.50, 1 token, 1 min 30 s and 1 attempt',
    );
  });

  it('counts gates', () => {
    expect([0, 1, 3].map(gatesText)).toEqual(['No gates', '1 gate', '3 gates']);
  });
});
