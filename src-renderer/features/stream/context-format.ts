import type { ContextItemKind, ContextZone } from '../../../src-shared/silas/context.js';
import type { StreamContextView } from '../../../src-shared/schemas/stream.js';
import { formatTokens } from './stream-format.js';

/* Pure wording of the context inspector (spec 002 §5.7 `context_inspection`, §3.5): no state, no calls. */

type Eviction = NonNullable<StreamContextView['last_eviction']>;
type EvictionReason = Eviction['items'][number]['reason'];

const ZONES: Record<ContextZone, string> = { system: 'System', chronicle: 'Chronicle', memory: 'Memory', workspace: 'Workspace' };

/** What each zone holds, in the person's words (§3.5). */
const ZONE_NOTES: Record<ContextZone, string> = {
  system: 'Instructions Silas always carries',
  chronicle: 'The conversation so far',
  memory: 'Memories recalled for this conversation',
  workspace: 'Plans and their results',
};

export function zoneLabel(zone: ContextZone): string {
  return ZONES[zone];
}

export function zoneNote(zone: ContextZone): string {
  return ZONE_NOTES[zone];
}

const KINDS: Record<ContextItemKind, string> = {
  message: 'message',
  tool_result: 'tool result',
  memory: 'memory',
  plan: 'plan',
  execution_result: 'execution result',
  subscription: 'subscription',
  system: 'system',
};

export function kindLabel(kind: ContextItemKind): string {
  return KINDS[kind];
}

export const tokensText = (tokens: number): string => `${formatTokens(tokens)} ${tokens === 1 ? 'token' : 'tokens'}`;

/** A part of a whole as a whole percentage ("80%"); "0%" for an empty whole. */
export function percent(part: number, whole: number): string {
  return whole <= 0 ? '0%' : `${Math.round((part / whole) * 100)}%`;
}

/** A zone's use against its budget, with the profile's share for the zones the profile shares out. */
export function zoneBudgetText(zone: Pick<StreamContextView['zones'][number], 'tokens' | 'budget' | 'share'>): string {
  const use = `${formatTokens(zone.tokens)} of ${tokensText(zone.budget)}`;
  return zone.share === null ? `${use} (fixed system budget)` : `${use} (${percent(zone.share, 1)} share)`;
}

/** The retriever's score for a recalled memory (§3.5), two decimals. */
export function relevanceText(relevance: number): string {
  return `relevance ${relevance.toFixed(2)}`;
}

const TIERS: Record<Eviction['tier'], string> = {
  heuristic: 'Tier 1 rules',
  scorer: 'the scorer model',
  fallback: 'the fallback rules (the scorer could not decide)',
};

/** Which tier of §5.7's two-tier eviction decided. */
export function tierText(tier: Eviction['tier']): string {
  return `${tier}: ${TIERS[tier]}`;
}

const REASONS: Record<EvictionReason, string> = {
  trivial_acknowledgement: 'a trivial acknowledgement',
  zone_policy: 'over its zone’s budget',
  scorer: 'chosen by the scorer',
  aggressive_heuristic: 'the aggressive fallback',
};

/** "1 item", "1,204 items". */
export const countText = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "3 items: 2 from Chronicle, 1 from Memory" — the zones in the order they are rendered. */
export function evictedSummary(eviction: Pick<Eviction, 'items' | 'omitted'>, order: readonly ContextZone[]): string {
  const total = eviction.items.length + eviction.omitted;
  if (total === 0) return 'No items';
  const byZone = order
    .map((zone) => [zone, eviction.items.filter((item) => item.zone === zone).length] as const)
    .filter(([, n]) => n > 0)
    .map(([zone, n]) => `${n.toLocaleString('en-US')} from ${zoneLabel(zone)}`);
  const more = eviction.omitted > 0 ? [`${eviction.omitted.toLocaleString('en-US')} more not listed`] : [];
  return `${countText(total, 'item', 'items')}: ${[...byZone, ...more].join(', ')}`;
}

/** "2 over its zone’s budget, 1 a trivial acknowledgement": how many left for each reason. */
export function reasonsSummary(items: Eviction['items']): string {
  const counts = new Map<EvictionReason, number>();
  for (const item of items) counts.set(item.reason, (counts.get(item.reason) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n.toLocaleString('en-US')} ${REASONS[reason]}`).join(', ');
}
