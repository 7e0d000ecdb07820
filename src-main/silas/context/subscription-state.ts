import type { ContextItem, ContextSubscription } from '../../../src-shared/silas/context.js';

/*
 * What the context manager keeps of each subscription besides the §3.5 fields, and the contract
 * with its persistence (docs/silas/context.md "Subscriptions"). Persisted so a restart restores
 * it (§5.1.3 step 4); the store seals each row with the ledger key (sealed-subscriptions.ts).
 */

/** Why the harness deactivated a subscription (the person's own `unsubscribe` is `owner`). */
export type DeactivationReason = 'owner' | 'ttl' | 'too_large' | 'unreadable' | 'evicted';

/** A subscription as it is persisted: the §3.5 fields and the harness's bookkeeping. */
export interface StoredSubscription {
  scope_id: string;
  sub: ContextSubscription;
  /** The turn its content last changed (the header's `last_changed`); null before the first materialisation. */
  last_changed_turn: number | null;
  /** The last turn an answer of the agent named its target, or the turn it was (re)activated (the TTL's start). */
  last_referenced_turn: number;
  /** `file_lines`: the first turn its lines no longer matched `content_hash`; null while they match. */
  stale_since_turn: number | null;
  /** Why it is inactive, in words (the reason, then what happened); null while active. */
  note: string | null;
}

/** Where subscriptions are kept across restarts. Rows that fail their seal are never returned by `load` (they are reported). */
export interface SubscriptionStore {
  load(scopeId: string): StoredSubscription[];
  save(record: StoredSubscription): void;
  delete(scopeId: string, subId: string): void;
}

/** Subscription lifecycle, for the audit chain (wired in app/). */
export type SubscriptionEvent =
  | { type: 'subscribed'; scope_id: string; sub: ContextSubscription; reactivated: boolean }
  | { type: 'unsubscribed'; scope_id: string; sub_id: string; removed: boolean }
  | { type: 'deactivated'; scope_id: string; turn: number; sub: ContextSubscription; reason: Exclude<DeactivationReason, 'owner'>; detail: string };

/** The header fields of a materialised block (§3.5: `--- subscription:file | auth.py:10-45 | live | last_changed: turn 8 ---`). */
export interface SubscriptionBlockMeta {
  sub_type: ContextSubscription['sub_type'];
  /** What the block shows: the path, the (merged) range, or the query. */
  target: string;
  /** `live`, or `[stale — file changed since turn N]`. */
  state: string;
  last_changed: number | null;
}

/** A subscription in memory: its record, and its materialised item while it has one. */
export interface LiveSubscription extends StoredSubscription {
  /** The block in its zone (owned by the subscription that leads a merged group); null when it costs nothing. */
  item: ContextItem | null;
  /** The turn `item` was materialised for: within a turn it is reused as it is (§3.5 "Materialization caching"). */
  cached_turn: number | null;
  /** The group `item` was built for (member ids and range), so a changed group is built again. */
  cached_key: string | null;
  /** Another subscription whose block shows this one's content (a whole file, or a merged range); null when it has its own. */
  covered_by: string | null;
}
