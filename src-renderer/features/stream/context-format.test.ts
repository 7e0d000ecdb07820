import { describe, expect, it } from 'vitest';
import { ZONE_ORDER } from '../../../src-shared/silas/context.js';
import { lastEviction } from '../../testing/stream-context-fixtures.js';
import { evictedSummary, kindLabel, percent, reasonsSummary, relevanceText, tierText, tokensText, zoneBudgetText } from './context-format.js';

describe('context inspector wording', () => {
  it('says tokens and budgets in words', () => {
    expect(tokensText(1)).toBe('1 token');
    expect(tokensText(12_345)).toBe('12,345 tokens');
    expect(percent(80_000, 100_000)).toBe('80%');
    expect(percent(5, 0)).toBe('0%');
    expect(zoneBudgetText({ tokens: 23, budget: 40_000, share: 0.4 })).toBe('23 of 40,000 tokens (40% share)');
    expect(zoneBudgetText({ tokens: 400, budget: 2_000, share: null })).toBe('400 of 2,000 tokens (fixed system budget)');
    expect(relevanceText(0.8231)).toBe('relevance 0.82');
    expect(kindLabel('tool_result')).toBe('tool result');
  });

  it('sums up an eviction by zone, in rendering order, and by reason', () => {
    const eviction = lastEviction();
    expect(tierText(eviction.tier)).toBe('scorer: the scorer model');
    expect(evictedSummary(eviction, ZONE_ORDER)).toBe('3 items: 2 from Chronicle, 1 from Memory');
    expect(evictedSummary({ items: eviction.items.slice(0, 1), omitted: 250 }, ZONE_ORDER)).toBe('251 items: 1 from Chronicle, 250 more not listed');
    expect(evictedSummary({ items: [], omitted: 0 }, ZONE_ORDER)).toBe('No items');
    expect(reasonsSummary(eviction.items)).toBe('2 chosen by the scorer, 1 a trivial acknowledgement');
  });
});
