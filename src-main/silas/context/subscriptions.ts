import { SilasError } from '../../../src-shared/errors.js';
import {
  ContextErrorCode,
  ContextSubscription,
  parseLineTarget,
  subscriptionPath,
  type AllocableZone,
  type LineRange,
  type ContextItem,
  type SubscriptionType,
  type TokenBudget,
} from '../../../src-shared/silas/context.js';
import type { TaintLevel } from '../../../src-shared/silas/execution.js';
import { checkSubscribablePath } from './subscription-files.js';
import { frameFile, frameMemories, groupSubscriptions, linesWithin, maxReadBytes, readGroup, sha256, type RecalledHit, type SubscriptionGroup } from './subscription-blocks.js';
import type { DeactivationReason, LiveSubscription, StoredSubscription, SubscriptionBlockMeta, SubscriptionEvent, SubscriptionStore } from './subscription-state.js';
import type { TokenCounter } from './token-counter.js';

/*
 * Context subscriptions (spec 002 §3.5 ContextSubscription, §4.3 subscribe/unsubscribe, §5.7
 * Tier 1 step 3 and render step 1, ADR-016): references to a file, a file's lines or a memory
 * query, materialised into their zone on each render. The context manager owns one of these and
 * gives it a port onto its zones. Decisions: docs/silas/context.md "Subscriptions".
 */

/** Subscriptions one conversation may hold, active or not (each costs a read per turn while active). */
const MAX_SUBSCRIPTIONS_PER_SCOPE = 50;

/** What the subscriptions may do to the zones of a scope. */
interface ZonePort {
  /** Adds a materialised item; returns why it was refused (larger than its zone), or null. */
  put(scopeId: string, item: ContextItem): string | null;
  remove(scopeId: string, ctxId: string): void;
  /** ctx_ids in the scope's memory zone (a memory query's results are deduplicated against them). */
  memoryIds(scopeId: string): ReadonlySet<string>;
}

export interface SubscriptionDeps {
  counter: TokenCounter;
  budget: Pick<TokenBudget, 'max_subscription_tokens' | 'subscription_ttl_turns'>;
  clock: () => Date;
  newId: () => string;
  zones: ZonePort;
  store?: SubscriptionStore;
  onEvent?: (event: SubscriptionEvent) => void;
}

/** Where materialisation reads memories: the Stream's retriever, active lanes only (§6.1). */
export interface MaterializeSources {
  recall?: (query: string) => Promise<readonly RecalledHit[]>;
}

export interface SubscribeRequest {
  sub_type: SubscriptionType;
  target: string;
  zone?: AllocableZone;
}

const invalid = (message: string) => new SilasError(ContextErrorCode.Invalid, message);
const itemId = (subId: string) => `sub-${subId}`;

export class ContextSubscriptions {
  private readonly scopes = new Map<string, Map<string, LiveSubscription>>();
  /** The header of each materialised item (items are frozen and replaced on change, so this cannot go stale). */
  private readonly headers = new WeakMap<ContextItem, SubscriptionBlockMeta>();

  constructor(private readonly deps: SubscriptionDeps) {}

  /** §5.1.3 step 4: the scope's subscriptions as persisted (rows failing their seal are not returned by the store). */
  restore(scopeId: string): void {
    const map = new Map<string, LiveSubscription>();
    for (const record of this.deps.store?.load(scopeId) ?? []) map.set(record.sub.sub_id, { ...record, item: null, cached_turn: null, cached_key: null, covered_by: null });
    this.scopes.set(scopeId, map);
  }

  forget(scopeId: string): void {
    this.scopes.delete(scopeId);
  }

  list(scopeId: string): readonly LiveSubscription[] {
    return [...(this.scopes.get(scopeId)?.values() ?? [])];
  }

  header(item: ContextItem): SubscriptionBlockMeta | undefined {
    return this.headers.get(item);
  }

  /** §4.3 `subscribe`: validates and registers; the same type and target again reactivates the one there. Returns its sub_id. */
  subscribe(scopeId: string, request: SubscribeRequest, turn: number): string {
    const parsed = ContextSubscription.safeParse({ sub_id: this.deps.newId(), sub_type: request.sub_type, target: request.target, zone: request.zone ?? 'workspace', created_at: this.deps.clock().toISOString(), turn_created: turn });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw invalid(`subscription ${issue.path.join('.') || '(subscription)'}: ${issue.message}`);
    }
    const sub = parsed.data;
    const path = subscriptionPath(sub);
    if (path !== null) {
      const problem = checkSubscribablePath(path);
      if (problem !== null) throw invalid(`subscription target: ${problem}`);
    }
    const map = this.scope(scopeId);
    const same = [...map.values()].find((live) => live.sub.sub_type === sub.sub_type && live.sub.target === sub.target);
    if (same) {
      this.reactivate(scopeId, same.sub.sub_id, turn);
      return same.sub.sub_id;
    }
    if (map.size >= MAX_SUBSCRIPTIONS_PER_SCOPE) throw invalid(`this conversation already holds ${map.size} subscriptions (at most ${MAX_SUBSCRIPTIONS_PER_SCOPE}); remove some first`);
    const live: LiveSubscription = { scope_id: scopeId, sub, last_changed_turn: null, last_referenced_turn: turn, stale_since_turn: null, note: null, item: null, cached_turn: null, cached_key: null, covered_by: null };
    map.set(sub.sub_id, live);
    this.save(live);
    this.deps.onEvent?.({ type: 'subscribed', scope_id: scopeId, sub, reactivated: false });
    return sub.sub_id;
  }

  /** Activates a subscription again: it is materialised on the next render; a line range is anchored to its lines as they are then. */
  reactivate(scopeId: string, subId: string, turn: number): void {
    const live = this.get(scopeId, subId);
    const sub = { ...live.sub, active: true, content_hash: live.sub.sub_type === 'file_lines' ? '' : live.sub.content_hash };
    Object.assign(live, { sub, last_referenced_turn: turn, stale_since_turn: null, note: null, cached_turn: null });
    this.save(live);
    this.deps.onEvent?.({ type: 'subscribed', scope_id: scopeId, sub, reactivated: true });
  }

  /** §4.3 `unsubscribe`: deactivates (kept, costs zero tokens); `remove` forgets it. */
  unsubscribe(scopeId: string, subId: string, remove = false): void {
    const live = this.get(scopeId, subId);
    this.takeItem(live);
    if (remove) {
      this.scopes.get(scopeId)!.delete(subId);
      this.deps.store?.delete(scopeId, subId);
    } else {
      live.sub = { ...live.sub, active: false, token_count: 0 };
      live.note = 'deactivated by you';
      this.save(live);
    }
    this.deps.onEvent?.({ type: 'unsubscribed', scope_id: scopeId, sub_id: subId, removed: remove });
  }

  /** §5.7 Tier 1 step 3: active subscriptions whose target no answer named for `subscription_ttl_turns` turns. */
  expire(scopeId: string, turn: number): number {
    let expired = 0;
    for (const live of this.list(scopeId)) {
      if (!live.sub.active || turn - live.last_referenced_turn <= this.deps.budget.subscription_ttl_turns) continue;
      this.deactivate(live, turn, 'ttl', `not named in an answer for ${this.deps.budget.subscription_ttl_turns} turns`);
      expired += 1;
    }
    return expired;
  }

  /** An answer of the agent that names a subscription's target (its path, file name or query) keeps it alive. */
  noteResponse(scopeId: string, turn: number, text: string): void {
    const lower = text.toLowerCase();
    for (const live of this.list(scopeId)) {
      if (!live.sub.active || !referenced(live, lower)) continue;
      live.last_referenced_turn = turn;
      this.save(live);
    }
  }

  /** Eviction took a materialised block: its subscriptions are deactivated, not deleted (§3.5 "Lifecycle"). */
  evicted(scopeId: string, item: ContextItem, turn: number): void {
    if (item.kind !== 'subscription' || !item.ctx_id.startsWith('sub-')) return;
    for (const live of this.list(scopeId)) {
      if (live.item === item || (live.sub.active && live.covered_by !== null && itemId(live.covered_by) === item.ctx_id)) {
        live.item = null;
        this.deactivate(live, turn, 'evicted', 'its block was evicted to bring the context within budget');
      }
    }
  }

  /** §5.7 render step 1: every active subscription resolved into its zone; returns the taints of the blocks now in context. */
  async materialize(scopeId: string, turn: number, sources: MaterializeSources = {}): Promise<TaintLevel[]> {
    const active = this.list(scopeId).filter((live) => live.sub.active);
    const taints: TaintLevel[] = [];
    for (const group of groupSubscriptions(active)) {
      for (const member of group.members) member.covered_by = member === group.leader ? null : group.leader.sub.sub_id;
      for (const member of group.members) if (member !== group.leader) this.takeItem(member);
      const item = group.source.kind === 'query' ? await this.materializeQuery(scopeId, turn, group, sources) : this.materializeFile(turn, group);
      if (item) taints.push(item.taint);
    }
    return taints;
  }

  private materializeFile(turn: number, group: SubscriptionGroup): ContextItem | null {
    const { leader } = group;
    if (leader.item && leader.cached_turn === turn && leader.cached_key === group.key) return leader.item;
    const read = readGroup(group, maxReadBytes(this.deps.budget));
    if (!read.ok) {
      for (const member of group.members) this.deactivate(member, turn, read.reason, read.detail);
      return null;
    }
    const tokens = this.deps.counter.count(read.text);
    if (tokens > this.deps.budget.max_subscription_tokens) {
      for (const member of group.members) this.deactivate(member, turn, 'too_large', `${tokens} tokens, more than max_subscription_tokens (${this.deps.budget.max_subscription_tokens})`);
      return null;
    }
    for (const member of group.members) this.track(member, turn, group.source.kind === 'lines' && member.sub.sub_type === 'file_lines' ? linesWithin(read.text, group.source.range, rangeOf(member)) : read.text);
    const stale = group.members.map((member) => member.stale_since_turn).filter((n): n is number => n !== null);
    const changed = group.members.map((member) => member.stale_since_turn ?? member.last_changed_turn ?? turn);
    const target = group.source.kind === 'lines' ? `${group.source.range.path}:${group.source.range.start}-${group.source.range.end}` : leader.sub.target;
    const meta: SubscriptionBlockMeta = {
      sub_type: leader.sub.sub_type,
      target,
      state: stale.length > 0 ? `[stale — file changed since turn ${Math.min(...stale)}]` : 'live',
      last_changed: Math.max(...changed),
    };
    return this.place(turn, group, frameFile(read.text), 'external', meta);
  }

  private async materializeQuery(scopeId: string, turn: number, group: SubscriptionGroup, sources: MaterializeSources): Promise<ContextItem | null> {
    // Always queried again, even within a turn: memory_ops may have changed the store (§3.5 "Materialization caching").
    if (!sources.recall || group.source.kind !== 'query') return group.leader.item;
    const framed = frameMemories(await sources.recall(group.source.query), this.deps.zones.memoryIds(scopeId));
    if (!group.leader.sub.active) return null;
    const tokens = this.deps.counter.count(framed.text);
    if (tokens > this.deps.budget.max_subscription_tokens) {
      this.deactivate(group.leader, turn, 'too_large', `${tokens} tokens of memories, more than max_subscription_tokens (${this.deps.budget.max_subscription_tokens})`);
      return null;
    }
    this.track(group.leader, turn, framed.text);
    const meta: SubscriptionBlockMeta = { sub_type: 'memory_query', target: group.source.query, state: 'live', last_changed: group.leader.last_changed_turn };
    return this.place(turn, group, framed.text, framed.taint, meta);
  }

  /** Records the content's hash: a whole file or query is live (a change moves `last_changed`); a range keeps its anchor and turns stale. */
  private track(live: LiveSubscription, turn: number, text: string): void {
    const hash = sha256(text);
    const before = JSON.stringify([live.sub.content_hash, live.last_changed_turn, live.stale_since_turn]);
    if (live.sub.content_hash === '' || (live.sub.sub_type !== 'file_lines' && live.sub.content_hash !== hash)) {
      live.sub = { ...live.sub, content_hash: hash };
      live.last_changed_turn = turn;
      live.stale_since_turn = null;
    } else if (live.sub.sub_type === 'file_lines') {
      live.stale_since_turn = live.sub.content_hash === hash ? null : (live.stale_since_turn ?? turn);
    }
    if (JSON.stringify([live.sub.content_hash, live.last_changed_turn, live.stale_since_turn]) !== before) this.save(live);
  }

  /** Puts the block in its zone, reusing the item as it is when nothing in it changed. */
  private place(turn: number, group: SubscriptionGroup, content: string, taint: TaintLevel, meta: SubscriptionBlockMeta): ContextItem | null {
    const { leader } = group;
    const old = leader.item;
    const oldMeta = old ? this.headers.get(old) : undefined;
    if (old && old.content === content && old.taint === taint && JSON.stringify(oldMeta) === JSON.stringify(meta)) {
      Object.assign(leader, { cached_turn: turn, cached_key: group.key });
      return old;
    }
    this.takeItem(leader);
    const item: ContextItem = Object.freeze({
      ctx_id: itemId(leader.sub.sub_id),
      zone: leader.sub.zone,
      content,
      token_count: this.deps.counter.count(content),
      created_at: this.deps.clock().toISOString(),
      turn_number: turn,
      source: `subscription:${leader.sub.sub_type}`,
      taint,
      kind: 'subscription',
      relevance: 1,
      masked: false,
      pinned: false,
    });
    this.headers.set(item, meta);
    const refused = this.deps.zones.put(leader.scope_id, item);
    if (refused !== null) {
      for (const member of group.members) this.deactivate(member, turn, 'too_large', refused);
      return null;
    }
    Object.assign(leader, { item, cached_turn: turn, cached_key: group.key });
    leader.sub = { ...leader.sub, token_count: item.token_count };
    this.save(leader);
    return item;
  }

  private deactivate(live: LiveSubscription, turn: number, reason: Exclude<DeactivationReason, 'owner'>, detail: string): void {
    if (!live.sub.active) return;
    this.takeItem(live);
    live.sub = { ...live.sub, active: false, token_count: 0 };
    live.note = `${reasonText[reason]}: ${detail}`.slice(0, 500);
    live.covered_by = null;
    this.save(live);
    this.deps.onEvent?.({ type: 'deactivated', scope_id: live.scope_id, turn, sub: live.sub, reason, detail: detail.slice(0, 500) });
  }

  /** Takes the subscription's own block out of its zone: a subscription without one costs zero tokens. */
  private takeItem(live: LiveSubscription): void {
    if (live.item) this.deps.zones.remove(live.scope_id, live.item.ctx_id);
    Object.assign(live, { item: null, cached_turn: null, cached_key: null });
  }

  private get(scopeId: string, subId: string): LiveSubscription {
    const live = this.scope(scopeId).get(subId);
    if (!live) throw invalid(`this conversation has no subscription "${subId}"; list them with stream.context`);
    return live;
  }

  private scope(scopeId: string): Map<string, LiveSubscription> {
    let map = this.scopes.get(scopeId);
    if (!map) {
      this.restore(scopeId);
      map = this.scopes.get(scopeId)!;
    }
    return map;
  }

  private save(live: LiveSubscription): void {
    const record: StoredSubscription = { scope_id: live.scope_id, sub: live.sub, last_changed_turn: live.last_changed_turn, last_referenced_turn: live.last_referenced_turn, stale_since_turn: live.stale_since_turn, note: live.note };
    this.deps.store?.save(record);
  }
}

const reasonText: Record<Exclude<DeactivationReason, 'owner'>, string> = {
  ttl: 'deactivated as unused',
  too_large: 'deactivated as too large',
  unreadable: 'deactivated as unreadable',
  evicted: 'deactivated by eviction',
};

function rangeOf(live: LiveSubscription): LineRange {
  // Validated when it was subscribed (and sealed since): a file_lines target parses.
  return parseLineTarget(live.sub.target)!;
}

function referenced(live: LiveSubscription, lowerText: string): boolean {
  if (live.sub.sub_type === 'memory_query') return lowerText.includes(live.sub.target.toLowerCase());
  const path = subscriptionPath(live.sub)!;
  const name = path.slice(path.lastIndexOf('/') + 1);
  return lowerText.includes(path.toLowerCase()) || (name.length >= 3 && lowerText.includes(name.toLowerCase()));
}
