import { isElevated, riskLabel } from '../../src-shared/review/cta.js';
import type { DecisionCard, RiskLevel } from '../../src-shared/schemas/review.js';

/*
 * Pure queue logic for the Review surface (spec 002 §0.5.1, §0.5.4), the same for every kind of
 * decision: ordering, the risk ladder's words, when the queue is dense enough to warn, and which
 * cards are new. The runtime assigns risk and orders the buttons; nothing here re-derives them.
 */

// The badge's words are shared with the runtime, which writes them into each card's notification.
export { isElevated, riskLabel };

/** Medium risk or higher: what §0.5.4 counts towards approval fatigue. */
export function isMediumOrHigher(risk: RiskLevel): boolean {
  return risk !== 'low';
}

/** §0.5.4 item 4: more than this many medium+ decisions queued shows the density cue. */
export const DENSITY_THRESHOLD = 5;

export function countMediumOrHigher(cards: readonly Pick<DecisionCard, 'riskLevel'>[]): number {
  return cards.reduce((n, card) => (isMediumOrHigher(card.riskLevel) ? n + 1 : n), 0);
}

export function needsDensityCue(cards: readonly Pick<DecisionCard, 'riskLevel'>[]): boolean {
  return countMediumOrHigher(cards) > DENSITY_THRESHOLD;
}

/**
 * Cards in `cards` that were not seen before. `seen` is null until the first queue arrives:
 * whatever is waiting when the cockpit opens is not "new" and must not raise notifications.
 */
export function newArrivals<T extends Pick<DecisionCard, 'id'>>(seen: ReadonlySet<string> | null, cards: readonly T[]): T[] {
  if (seen === null) return [];
  return cards.filter((card) => !seen.has(card.id));
}

/** How many leading characters of a plan hash are shown, as `silas run --approve-here` asks for them. */
const PLAN_HASH_PREFIX_LENGTH = 8;

export function shortPlanHash(planHash: string): string {
  return planHash.slice(0, PLAN_HASH_PREFIX_LENGTH);
}
