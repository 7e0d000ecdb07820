import type { CardOrigin, DecisionCard } from '../schemas/review.js';

/*
 * Review's order by source (docs/review.md "Sources"). A requester that floods must not bury
 * anyone else, so cards are grouped by the source that asked (one requester session: one
 * connection to the runtime, which a requester cannot forge; or one standing source) and every
 * source's first card comes before any source's second. Sources are ranked:
 *
 *   0. the person's own: a Stream conversation in the cockpit, and the runtime's standing
 *      decisions (a changed tool definition of a server the person governs);
 *   1. a requester whose request names one of the person's governed (wrapped) servers;
 *   2. every other requester (an unknown server, a CLI command, a local conversation);
 *
 * and, within a rank, by their oldest waiting card. The rank is a hint taken partly from the
 * request (a hostile requester can name a governed server); what a flood cannot change is that
 * each of its sessions is one group, capped per session by the queue, so a real proxy's card is
 * one group head among a bounded few, never the 2,001st card.
 */

/** The source of a card that carries no origin (a runtime older than sources). */
const UNKNOWN_SOURCE: CardOrigin = { channel: 'local_requester', sourceId: 'unknown', requester: 'an unknown requester', taint: 'external', governed: false };

export interface CardGroup<C extends DecisionCard = DecisionCard> {
  origin: CardOrigin;
  /** Oldest first; the first is the one shown. */
  cards: C[];
}

/** A card without an origin is a source of its own: nothing says two such cards share a requester. */
export function originOf(card: Pick<DecisionCard, 'origin' | 'id'>): CardOrigin {
  return card.origin ?? { ...UNKNOWN_SOURCE, sourceId: `unknown:${card.id}` };
}

function sourceRank(origin: CardOrigin): number {
  if (origin.channel === 'cockpit' || origin.channel === 'runtime') return 0;
  return origin.governed ? 1 : 2;
}

/**
 * Oldest request first; ties by id, so the order never flickers. ISO-8601 UTC times compare as
 * strings, code unit by code unit (`localeCompare` would cost ten times more at 10,000 cards).
 */
function compareCards(a: Pick<DecisionCard, 'requestedAt' | 'id'>, b: Pick<DecisionCard, 'requestedAt' | 'id'>): number {
  if (a.requestedAt !== b.requestedAt) return a.requestedAt < b.requestedAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The cards grouped by source, in the rank order above (O(n log n)). */
export function groupBySource<C extends DecisionCard>(cards: readonly C[]): CardGroup<C>[] {
  const groups = new Map<string, CardGroup<C>>();
  for (const card of cards) {
    const origin = originOf(card);
    let group = groups.get(origin.sourceId);
    if (!group) groups.set(origin.sourceId, (group = { origin, cards: [] }));
    group.cards.push(card);
  }
  const list = [...groups.values()];
  for (const group of list) group.cards.sort(compareCards);
  list.sort((a, b) => sourceRank(a.origin) - sourceRank(b.origin) || compareCards(a.cards[0]!, b.cards[0]!));
  return list;
}

/** The flat order `review.list` pages in: every group's first card, then the rest group by group. */
export function orderBySource<C extends DecisionCard>(cards: readonly C[]): C[] {
  const groups = groupBySource(cards);
  return [...groups.map((g) => g.cards[0]!), ...groups.flatMap((g) => g.cards.slice(1))];
}

/** "proxy of server "x" says", the words a card puts before text its requester chose. */
export function attribution(origin: CardOrigin): string {
  return `${origin.requester} says`;
}
