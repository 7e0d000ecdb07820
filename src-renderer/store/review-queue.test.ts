import { describe, expect, it } from 'vitest';
import { planCard, toolCallCard, toolChangeCard } from '../testing/review-fixtures.js';
import { countMediumOrHigher, DENSITY_THRESHOLD, isElevated, needsDensityCue, newArrivals, riskLabel, shortPlanHash } from './review-queue.js';

const ids = (cards: readonly { id: string }[]) => cards.map((card) => card.id);

describe('risk', () => {
  it('labels every level of the ladder (§0.5.2)', () => {
    expect((['low', 'medium', 'high', 'irreversible'] as const).map(riskLabel)).toEqual(['Low risk', 'Medium risk', 'High risk', 'Irreversible']);
  });

  it('treats high and irreversible as elevated', () => {
    expect(isElevated('low')).toBe(false);
    expect(isElevated('medium')).toBe(false);
    expect(isElevated('high')).toBe(true);
    expect(isElevated('irreversible')).toBe(true);
  });
});

describe('queue density cue (§0.5.4)', () => {
  const queue = (medium: number, low = 0) => [
    ...Array.from({ length: medium }, (_, i) => (i % 2 ? planCard(i, { riskLevel: 'high' }) : toolCallCard(i, { riskLevel: 'medium' }))),
    ...Array.from({ length: low }, (_, i) => toolCallCard(100 + i, { riskLevel: 'low' })),
  ];

  it('shows only when more than five medium+ decisions wait, of any kind', () => {
    expect(DENSITY_THRESHOLD).toBe(5);
    expect(needsDensityCue(queue(5))).toBe(false);
    expect(needsDensityCue(queue(6))).toBe(true);
    expect(needsDensityCue([...queue(5), toolChangeCard(50)])).toBe(true);
  });

  it('does not count low-risk decisions', () => {
    expect(countMediumOrHigher(queue(5, 10))).toBe(5);
    expect(needsDensityCue(queue(5, 10))).toBe(false);
  });
});

describe('newArrivals', () => {
  it('reports nothing before the first queue was seen', () => {
    expect(newArrivals(null, [toolCallCard(1)])).toEqual([]);
  });

  it('reports only cards that were not seen before', () => {
    const seen = new Set(['tool_call-1']);
    expect(ids(newArrivals(seen, [toolCallCard(1), planCard(2), toolChangeCard(3)]))).toEqual(['plan-2', 'tool_change-3']);
  });
});

describe('shortPlanHash', () => {
  it('shows the first 8 characters of the plan hash', () => {
    expect(shortPlanHash(planCard(1).details.planHash)).toBe('1a2b3c4d');
  });
});
