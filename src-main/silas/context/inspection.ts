import { ZONE_ORDER, type ContextItem, type ContextZone } from '../../../src-shared/silas/context.js';
import { CONTEXT_EXCERPT_CHARS, MAX_CONTEXT_ITEMS_SHOWN, type ContextItemView, type StreamContextView, type SubscriptionView } from '../../../src-shared/schemas/stream.js';
import type { ContextManager } from './context-manager.js';
import type { LiveSubscription } from './subscription-state.js';

/**
 * `context_inspection` of spec 002 §5.7 for the person: a read-only description of what one
 * scope's context holds and why. Items are described by their metadata and a short excerpt, never
 * rendered whole; each zone lists its newest items up to MAX_CONTEXT_ITEMS_SHOWN and counts the
 * rest. Nothing here changes the scope: it does not mask, evict or create a scope that does not
 * exist (an unknown scope reads as empty).
 */

type Inspected = Pick<ContextManager, 'getZone' | 'tokenUsage' | 'budgets' | 'profile' | 'thresholdTokens' | 'lastEviction' | 'settings' | 'subscriptions'>;

const SHARES = { chronicle: 'chronicle_pct', memory: 'memory_pct', workspace: 'workspace_pct' } as const;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  return flat.length > CONTEXT_EXCERPT_CHARS ? `${flat.slice(0, CONTEXT_EXCERPT_CHARS)}…` : flat;
}

function itemView(item: ContextItem): ContextItemView {
  return {
    ctx_id: item.ctx_id,
    kind: item.kind,
    source: item.source,
    taint: item.taint,
    tokens: item.token_count,
    relevance: item.relevance,
    pinned: item.pinned,
    masked: item.masked,
    turn: item.turn_number,
    created_at: item.created_at,
    excerpt: excerpt(item.content),
  };
}

/** A subscription as the inspector lists it: what it reads, whether it is active, and what it costs now. */
export function subscriptionView(live: LiveSubscription): SubscriptionView {
  const { sub } = live;
  return {
    sub_id: sub.sub_id,
    sub_type: sub.sub_type,
    target: sub.target,
    zone: sub.zone,
    active: sub.active,
    tokens: live.item?.token_count ?? 0,
    turn_created: sub.turn_created,
    created_at: sub.created_at,
    last_changed: live.stale_since_turn ?? live.last_changed_turn,
    stale_since: live.stale_since_turn,
    covered_by: sub.active ? live.covered_by : null,
    note: sub.active ? null : live.note,
  };
}

export function inspectContext(context: Inspected, scope: StreamContextView['scope'], turns: number): StreamContextView {
  const usage = context.tokenUsage(scope);
  const budgets = context.budgets(scope);
  const profile = context.profile(scope);
  const settings = context.settings();
  const zones = ZONE_ORDER.map((zone: ContextZone) => {
    const items = context.getZone(scope, zone);
    const shown = items.slice(-MAX_CONTEXT_ITEMS_SHOWN);
    return {
      zone,
      tokens: usage[zone],
      budget: zone === 'system' ? settings.system_max : budgets.zones[zone],
      share: zone === 'system' ? null : profile[SHARES[zone]],
      items: shown.map(itemView),
      omitted: items.length - shown.length,
    };
  });
  const last = context.lastEviction(scope);
  return {
    scope,
    turns,
    profile: profile.name,
    total_budget: settings.total,
    used: ZONE_ORDER.reduce((sum, zone) => sum + usage[zone], 0),
    threshold: Math.floor(context.thresholdTokens()),
    allocable: budgets.allocable,
    headroom: budgets.headroom,
    zones,
    subscriptions: context.subscriptions(scope).map(subscriptionView),
    last_eviction:
      last === null
        ? null
        : {
            turn: last.turn,
            tier: last.tier,
            why: last.why,
            at: last.at,
            items: last.items.slice(0, MAX_CONTEXT_ITEMS_SHOWN).map((item) => ({ ctx_id: item.ctx_id, zone: item.zone, kind: item.kind, tokens: item.token_count, reason: item.reason })),
            omitted: Math.max(0, last.items.length - MAX_CONTEXT_ITEMS_SHOWN),
          },
  };
}
