import { orderBySource } from '../../src-shared/review/sources.js';
import type { DecisionCard, ReviewQueueDelta } from '../../src-shared/schemas/review.js';

/*
 * The cockpit's copy of the Review queue follows the runtime's deltas (docs/review.md "Deltas"):
 * each `review.changed` carries only the cards added, updated or removed, numbered by `seq`. A
 * delta that does not follow the held `seq` means one was missed: the copy is re-listed.
 */

export interface HeldQueue {
  cards: readonly DecisionCard[];
  seq: number;
}

export type DeltaOutcome =
  /** Applied: the new cards in source order. */
  | { kind: 'applied'; cards: DecisionCard[] }
  /** Already included (a delta older than the held list). */
  | { kind: 'stale' }
  /** One or more deltas were missed: list again. */
  | { kind: 'gap' };

export function applyReviewDelta(held: HeldQueue, delta: ReviewQueueDelta): DeltaOutcome {
  if (delta.seq <= held.seq) return { kind: 'stale' };
  if (delta.seq !== held.seq + 1) return { kind: 'gap' };
  const byId = new Map(held.cards.map((card) => [card.id, card]));
  for (const id of delta.removed) byId.delete(id);
  for (const card of delta.added) byId.set(card.id, card);
  for (const card of delta.updated) byId.set(card.id, card);
  return { kind: 'applied', cards: orderBySource([...byId.values()]) };
}
