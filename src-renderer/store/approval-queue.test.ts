import { describe, expect, it } from 'vitest';
import { pendingApproval } from '../test/approval-fixtures.js';
import { countMediumOrHigher, DENSITY_THRESHOLD, isElevated, needsDensityCue, newArrivals, riskLabel, sortOldestFirst } from './approval-queue.js';

const ids = (cards: readonly { id: string }[]) => cards.map((card) => card.id);

describe('sortOldestFirst', () => {
  it('puts the oldest request first without changing the input', () => {
    const input = [pendingApproval(3), pendingApproval(1), pendingApproval(2)];
    expect(ids(sortOldestFirst(input))).toEqual(['approval-1', 'approval-2', 'approval-3']);
    expect(ids(input)).toEqual(['approval-3', 'approval-1', 'approval-2']);
  });

  it('breaks ties by id so the active card is stable', () => {
    const at = pendingApproval(1).requestedAt;
    const input = [pendingApproval(9, { id: 'b', requestedAt: at }), pendingApproval(8, { id: 'a', requestedAt: at })];
    expect(ids(sortOldestFirst(input))).toEqual(['a', 'b']);
  });
});

describe('risk', () => {
  it('labels every level of the ladder', () => {
    expect(['low', 'medium', 'high', 'critical'].map((r) => riskLabel(r as 'low'))).toEqual(['Low risk', 'Medium risk', 'High risk', 'Critical risk']);
  });

  it('treats high and critical as elevated', () => {
    expect(isElevated('low')).toBe(false);
    expect(isElevated('medium')).toBe(false);
    expect(isElevated('high')).toBe(true);
    expect(isElevated('critical')).toBe(true);
  });
});

describe('queue density cue (§0.5.4)', () => {
  const queue = (medium: number, low = 0) => [
    ...Array.from({ length: medium }, (_, i) => pendingApproval(i, { risk: i % 2 ? 'high' : 'medium' })),
    ...Array.from({ length: low }, (_, i) => pendingApproval(100 + i, { risk: 'low' })),
  ];

  it('shows only when more than five medium+ approvals wait', () => {
    expect(DENSITY_THRESHOLD).toBe(5);
    expect(needsDensityCue(queue(5))).toBe(false);
    expect(needsDensityCue(queue(6))).toBe(true);
  });

  it('does not count low-risk approvals', () => {
    expect(countMediumOrHigher(queue(5, 10))).toBe(5);
    expect(needsDensityCue(queue(5, 10))).toBe(false);
  });
});

describe('newArrivals', () => {
  it('reports nothing before the first queue was seen', () => {
    expect(newArrivals(null, [pendingApproval(1)])).toEqual([]);
  });

  it('reports only cards that were not seen before', () => {
    const seen = new Set(['approval-1']);
    expect(ids(newArrivals(seen, [pendingApproval(1), pendingApproval(2)]))).toEqual(['approval-2']);
  });
});
