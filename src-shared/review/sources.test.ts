import { describe, expect, it } from 'vitest';
import type { CardOrigin, DecisionCard } from '../schemas/review.js';
import { groupBySource, orderBySource, originOf } from './sources.js';

const origin = (sourceId: string, rest: Partial<CardOrigin> = {}): CardOrigin => ({ channel: 'local_requester', sourceId, requester: sourceId, taint: 'external', governed: false, ...rest });
const card = (id: string, at: number, o?: CardOrigin) => ({ id, requestedAt: new Date(Date.UTC(2026, 0, 1) + at * 1000).toISOString(), ...(o ? { origin: o } : {}) }) as unknown as DecisionCard;

describe('Review order by source', () => {
  it("ranks the person's own, then governed servers, then other requesters; oldest first within a rank", () => {
    const flood = origin('flood');
    const cards = [card('f1', 1, flood), card('f2', 2, flood), card('f3', 3, flood), card('g1', 9, origin('real', { governed: true })), card('o1', 10, origin('stream:x', { channel: 'cockpit', taint: 'auth' })), card('u1', 5, origin('other'))];
    expect(groupBySource(cards).map((g) => [g.origin.sourceId, g.cards.length])).toEqual([
      ['stream:x', 1],
      ['real', 1],
      ['flood', 3],
      ['other', 1],
    ]);
    // Every source's first card before any source's second.
    expect(orderBySource(cards).map((c) => c.id)).toEqual(['o1', 'g1', 'f1', 'u1', 'f2', 'f3']);
  });

  it('treats each card without an origin as a source of its own, never grouping them', () => {
    const cards = [card('a', 2), card('b', 1)];
    expect(groupBySource(cards).map((g) => g.cards.map((c) => c.id))).toEqual([['b'], ['a']]);
    expect(originOf(cards[0]!)).toMatchObject({ sourceId: 'unknown:a', taint: 'external' });
  });
});
