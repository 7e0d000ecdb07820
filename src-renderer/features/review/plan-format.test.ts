import { describe, expect, it } from 'vitest';
import { pendingPlan } from '../../test/plan-fixtures.js';
import { budgetSummary, formatDuration, formatUsd, gatesText, planActionsFor, planCardName, planCountdownText, planIntentLine } from './plan-format.js';

describe('plan card text', () => {
  it('names the card and states its intent with the work item type', () => {
    expect(planCardName(pendingPlan(1))).toBe('Plan approval: Fix the timezone bug 1');
    expect(planIntentLine(pendingPlan(1, { type: 'goal', title: 'Keep CI green' }))).toBe('Run plan: Keep CI green (goal)');
  });

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

  it('counts down to expiresAt and says what expiry means for a plan', () => {
    const expiresAt = '2026-01-01T12:02:00.000Z';
    expect(planCountdownText(expiresAt, Date.parse('2026-01-01T12:00:00.000Z'))).toBe('Expires in 2:00');
    expect(planCountdownText(expiresAt, Date.parse(expiresAt))).toBe('Expired — silas run gets a timeout and nothing runs');
  });

  it('orders the buttons recommended first, decline or danger last', () => {
    const shape = (risk: Parameters<typeof planActionsFor>[0]) => planActionsFor(risk).map((a) => `${a.decision}:${a.tone}`);
    expect(shape('low')).toEqual(['approve:recommended', 'deny:secondary']);
    expect(shape('medium')).toEqual(['approve:recommended', 'deny:secondary']);
    expect(shape('high')).toEqual(['deny:recommended', 'approve:danger']);
    expect(shape('critical')).toEqual(['deny:recommended', 'approve:danger']);
    expect(planActionsFor('low').map((a) => [a.label, a.consequence])).toEqual([
      ['Approve and sign', 'Signs this exact plan with your owner key; it runs once in a sandbox and only its checks decide success'],
      ['Deny', 'Nothing runs'],
    ]);
  });
});
