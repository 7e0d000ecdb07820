import { describe, expect, it } from 'vitest';
import type { CardOrigin } from '../../src-shared/schemas/review.js';
import { reviewDelta, toolCallCard } from '../testing/review-fixtures.js';
import { applyReviewDelta } from './review-deltas.js';

const source = (id: string, governed = false): CardOrigin => ({ channel: 'local_requester', sourceId: id, requester: id, taint: 'external', governed });

describe('applying Review deltas', () => {
  it('adds, updates and removes by id and keeps source order (every source first card first)', () => {
    const a1 = { ...toolCallCard(1), origin: source('a') };
    const a2 = { ...toolCallCard(2), origin: source('a') };
    const b3 = { ...toolCallCard(3), origin: source('b') };
    const outcome = applyReviewDelta({ cards: [a1, a2], seq: 4 }, reviewDelta(5, { added: [b3] }));
    expect(outcome.kind === 'applied' && outcome.cards.map((c) => c.id)).toEqual(['tool_call-1', 'tool_call-3', 'tool_call-2']);
    const updated = { ...a2, intent: 'changed' };
    const next = applyReviewDelta({ cards: outcome.kind === 'applied' ? outcome.cards : [], seq: 5 }, reviewDelta(6, { updated: [updated], removed: ['tool_call-1'] }));
    expect(next.kind === 'applied' && next.cards.map((c) => [c.id, c.intent])).toEqual([
      ['tool_call-2', 'changed'],
      ['tool_call-3', b3.intent],
    ]);
  });

  it('ignores a delta already held and reports a gap', () => {
    expect(applyReviewDelta({ cards: [], seq: 4 }, reviewDelta(4))).toEqual({ kind: 'stale' });
    expect(applyReviewDelta({ cards: [], seq: 4 }, reviewDelta(6))).toEqual({ kind: 'gap' });
  });
});
