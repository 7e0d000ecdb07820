import { randomUUID } from 'node:crypto';
import { SilasError } from '../../../src-shared/errors.js';
import {
  ALLOCABLE_ZONES,
  ContextErrorCode,
  ContextItem,
  ContextZone,
  ScopeId,
  ZONE_ORDER,
  type AllocableZone,
  type ContextItemInput,
  type ContextProfile,
  type TokenBudget,
} from '../../../src-shared/silas/context.js';
import { findProfile, oversizeRefusal, zoneBudgets, type ZoneBudgets } from './budget.js';
import {
  DEFAULT_TRIVIAL_ACK,
  evictionOrder,
  isTrivialAcknowledgement,
  maskedPlaceholder,
  parseToolResultSource,
  shouldMask,
  statelessPattern,
} from './eviction.js';
import { renderAll, renderBlock, renderSections, subscriptionHeader, type RenderedSection } from './render.js';
import type { LiveSubscription, SubscriptionEvent, SubscriptionStore } from './subscription-state.js';
import { ContextSubscriptions, type MaterializeSources, type SubscribeRequest } from './subscriptions.js';
import type { TokenCounter } from './token-counter.js';
import type { TaintLevel } from '../../../src-shared/silas/execution.js';

/**
 * The ContextManager of spec 002 §4.3 / §5.7: the four zones of each scope's context window,
 * their budgets under the scope's profile, rendering into the prompt, and the heuristic tier of
 * eviction. Every operation names its scope and there is no call that reads across scopes, so
 * one connection's chronicle, memories and workspace never reach another's prompt. Decisions:
 * docs/silas/context.md.
 */

export interface ContextManagerDeps {
  /** §5.13: counts every item when it is added; the count is never taken from the caller. */
  counter: TokenCounter;
  budget: TokenBudget;
  /** `created_at` of items added without one. */
  clock?: () => Date;
  /** `ctx_id` of items added without one. */
  newId?: () => string;
  /** §5.7 "configurable regex" for trivial acknowledgements. */
  trivialAckPattern?: RegExp;
  /** Where subscriptions are kept across restarts (sealed rows, §5.1.3 step 4); in memory only without it. */
  subscriptionStore?: SubscriptionStore;
  /** Subscribed, unsubscribed, deactivated: for the audit chain. */
  onSubscriptionEvent?: (event: SubscriptionEvent) => void;
}

/** An item to add: `token_count` is recounted, `ctx_id` and `created_at` filled in when absent. */
export type ContextItemDraft = Omit<ContextItemInput, 'ctx_id' | 'created_at' | 'token_count'> & {
  ctx_id?: string;
  created_at?: string;
  token_count?: number;
};

/**
 * Why an item left the context: Tier 1's trivial acknowledgements and zone policies, Tier 2's
 * scorer groups, and the deterministic aggressive heuristic that stands in for the scorer (§5.7).
 */
type EvictionReason = 'trivial_acknowledgement' | 'zone_policy' | 'scorer' | 'aggressive_heuristic';

/** An item removed by eviction; the Stream stores its content in memory (§5.1 step 5). */
export interface EvictedItem {
  item: ContextItem;
  reason: EvictionReason;
}

/** The last eviction of a scope as context inspection shows it (§5.7 `context_inspection`). */
export interface EvictionNote {
  turn: number;
  /** `heuristic` (Tier 1 alone), `scorer` (the scorer model's groups), `fallback` (the aggressive heuristic of Tier 2). */
  tier: 'heuristic' | 'scorer' | 'fallback';
  /** Why, in words: which zone was over its budget, what the scorer said, why the scorer was not used. */
  why: string;
  at: string;
  items: ReadonlyArray<{ ctx_id: string; zone: ContextZone; kind: ContextItem['kind']; token_count: number; reason: EvictionReason }>;
}

export interface EnforceResult {
  /** In the order they were removed. */
  evicted: EvictedItem[];
  /** ctx_ids of tool results masked by this call. */
  masked: string[];
  /** Zones still over budget: only pinned items are left to give up. */
  overBudget: AllocableZone[];
  /** Total usage still above `eviction_threshold_pct` of `total`: the scorer tier's cue (§5.7 Tier 2). */
  overThreshold: boolean;
}

type ZoneUsage = Record<ContextZone, number>;

interface Scope {
  profile: string;
  /** The turn of the last `enforceBudget` (Tier 2's evictions belong to it). */
  turn: number;
  lastEviction: EvictionNote | null;
  /** Per zone, in the order items were added (a masked item keeps its place). */
  zones: Record<ContextZone, Map<string, ContextItem>>;
  tokens: ZoneUsage;
}

const emptyUsage = (): ZoneUsage => ({ system: 0, chronicle: 0, memory: 0, workspace: 0 });

function invalid(message: string): SilasError {
  return new SilasError(ContextErrorCode.Invalid, message);
}

export class ContextManager {
  private readonly scopes = new Map<string, Scope>();
  private readonly counter: TokenCounter;
  private readonly budget: TokenBudget;
  private readonly clock: () => Date;
  private readonly newId: () => string;
  private readonly trivialAck: RegExp;
  private readonly subs: ContextSubscriptions;
  /**
   * Each item's rendered block. Items are frozen and masking replaces an item by a new object, so
   * a block can never be stale; a turn re-renders only what it added.
   */
  private readonly blocks = new WeakMap<ContextItem, string>();
  private readonly block = (item: ContextItem): string => {
    let text = this.blocks.get(item);
    if (text === undefined) {
      const meta = item.kind === 'subscription' ? this.subs.header(item) : undefined;
      text = meta ? renderBlock(item, subscriptionHeader(meta)) : renderBlock(item);
      this.blocks.set(item, text);
    }
    return text;
  };

  constructor(deps: ContextManagerDeps) {
    this.counter = deps.counter;
    this.budget = deps.budget;
    this.clock = deps.clock ?? (() => new Date());
    this.newId = deps.newId ?? (() => `ctx-${randomUUID()}`);
    this.trivialAck = statelessPattern(deps.trivialAckPattern ?? DEFAULT_TRIVIAL_ACK);
    this.subs = new ContextSubscriptions({
      counter: deps.counter,
      budget: deps.budget,
      clock: this.clock,
      newId: () => randomUUID(),
      zones: {
        put: (scopeId, item) => {
          const scope = this.scopeFor(scopeId);
          const tooLarge = oversizeRefusal(this.budget, this.profile(scopeId), scope.tokens.system, item, scopeId);
          if (tooLarge) return tooLarge.message;
          this.put(scope, item);
          return null;
        },
        remove: (scopeId, ctxId) => {
          const scope = this.scopes.get(scopeId);
          const item = scope?.zones.workspace.get(ctxId) ?? scope?.zones.memory.get(ctxId) ?? scope?.zones.chronicle.get(ctxId);
          if (scope && item) this.remove(scope, item);
        },
        memoryIds: (scopeId) => new Set(this.scopes.get(scopeId)?.zones.memory.keys() ?? []),
      },
      ...(deps.subscriptionStore ? { store: deps.subscriptionStore } : {}),
      ...(deps.onSubscriptionEvent ? { onEvent: deps.onSubscriptionEvent } : {}),
    });
  }

  /** §4.3 `subscribe` (ContextSubscription, §3.5): registers a live reference in `scopeId`; the same type and target again reactivates it. Returns its sub_id. */
  subscribe(scopeId: string, request: SubscribeRequest, turnNumber: number): string {
    this.scopeFor(scopeId);
    return this.subs.subscribe(scopeId, request, turnNumber);
  }

  /** §4.3 `unsubscribe`: deactivates (kept, zero tokens); `remove` forgets the subscription. */
  unsubscribe(scopeId: string, subId: string, remove = false): void {
    this.subs.unsubscribe(scopeId, subId, remove);
  }

  /** Activates a deactivated subscription again; it is materialised on the next render. */
  reactivate(scopeId: string, subId: string, turnNumber: number): void {
    this.subs.reactivate(scopeId, subId, turnNumber);
  }

  /** The scope's subscriptions, in the order they were made. */
  subscriptions(scopeId: string): readonly LiveSubscription[] {
    return this.subs.list(scopeId);
  }

  /** §5.1.3 step 4: the scope's persisted subscriptions (each checked against its seal by the store); materialised on the next render. */
  restoreSubscriptions(scopeId: string): void {
    this.subs.restore(scopeId);
  }

  /**
   * §5.7 render step 1: resolves every active subscription of the scope into its zone (async: a
   * memory query goes through the retriever). Call it right before `render`; returns the taints
   * of the blocks now in context, so the answer is no more trusted than what it read (§5.12).
   */
  materialize(scopeId: string, turnNumber: number, sources: MaterializeSources = {}): Promise<TaintLevel[]> {
    return this.subs.materialize(scopeId, turnNumber, sources);
  }

  /** An answer of the agent: subscriptions whose target it names stay active (§5.7 Tier 1 step 3). */
  noteResponse(scopeId: string, turnNumber: number, text: string): void {
    this.subs.noteResponse(scopeId, turnNumber, text);
  }

  /** §4.3 `add`: validates, counts and stores the item in its zone of `scopeId`; returns its ctx_id. */
  add(scopeId: string, draft: ContextItemDraft): string {
    const content = typeof draft.content === 'string' ? draft.content : '';
    const parsed = ContextItem.safeParse({
      ...draft,
      ctx_id: draft.ctx_id ?? this.newId(),
      created_at: draft.created_at ?? this.clock().toISOString(),
      token_count: this.counter.count(content),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw invalid(`context item ${issue.path.join('.') || '(item)'}: ${issue.message}`);
    }
    const item = parsed.data;
    if (item.kind === 'tool_result' && parseToolResultSource(item.source) === null) {
      throw invalid(`tool result "${item.ctx_id}" has source "${item.source}"; it must be tool:<name>:succeeded or tool:<name>:failed (toolResultSource())`);
    }
    const scope = this.scopeFor(scopeId);
    if (ZONE_ORDER.some((zone) => scope.zones[zone].has(item.ctx_id))) {
      throw new SilasError(ContextErrorCode.Duplicate, `scope "${scopeId}" already holds an item "${item.ctx_id}"; drop it first or use a new ctx_id`);
    }
    const tooLarge = oversizeRefusal(this.budget, this.profile(scopeId), scope.tokens.system, item, scopeId);
    if (tooLarge) throw tooLarge;
    this.put(scope, Object.freeze(item));
    return item.ctx_id;
  }

  /** §4.3 `drop` (harness only). Returns whether the scope held the item. */
  drop(scopeId: string, ctxId: string): boolean {
    const scope = this.scopes.get(scopeId);
    if (!scope) return false;
    for (const zone of ZONE_ORDER) {
      const item = scope.zones[zone].get(ctxId);
      if (item) {
        this.remove(scope, item);
        return true;
      }
    }
    return false;
  }

  /** §4.3 `get_zone`: the zone's items in `scopeId`, in the order they were added (frozen). */
  getZone(scopeId: string, zone: ContextZone): readonly ContextItem[] {
    if (!ContextZone.safeParse(zone).success) throw invalid(`zone "${String(zone)}" is not one of ${ZONE_ORDER.join(', ')}`);
    const scope = this.scopes.get(scopeId);
    return scope ? [...scope.zones[zone].values()] : [];
  }

  /** §4.3 `set_profile`: the budget profile of this scope only. */
  setProfile(scopeId: string, profileName: string): void {
    if (!findProfile(this.budget, profileName)) {
      throw new SilasError(
        ContextErrorCode.UnknownProfile,
        `context profile "${profileName}" is not defined; use one of ${Object.keys(this.budget.profiles).join(', ')} or add it to context.profiles`,
      );
    }
    this.scopeFor(scopeId).profile = profileName;
  }

  /** The scope's current profile (the budget's default until `setProfile`). */
  profile(scopeId: string): ContextProfile {
    return findProfile(this.budget, this.scopes.get(scopeId)?.profile ?? this.budget.default_profile)!;
  }

  /** §4.3 `token_usage`: tokens per zone (diagnostics; never rendered to the agent). */
  tokenUsage(scopeId: string): Record<ContextZone, number> {
    const scope = this.scopes.get(scopeId);
    return scope ? { ...scope.tokens } : emptyUsage();
  }

  /** The §3.5 headroom math for the scope as it is now. */
  budgets(scopeId: string): ZoneBudgets {
    return zoneBudgets(this.budget, this.profile(scopeId), this.tokenUsage(scopeId).system);
  }

  /** The token budget every scope is held to (§3.5 TokenBudget). */
  settings(): Readonly<TokenBudget> {
    return this.budget;
  }

  /** Tokens of the whole scope, every zone. */
  totalTokens(scopeId: string): number {
    const usage = this.tokenUsage(scopeId);
    return ZONE_ORDER.reduce((sum, zone) => sum + usage[zone], 0);
  }

  /** `eviction_threshold_pct` of `total`: above it, two-tier eviction runs (§5.7). */
  thresholdTokens(): number {
    return this.budget.eviction_threshold_pct * this.budget.total;
  }

  /** Total usage above `eviction_threshold_pct` (Tier 2's cue and stopping rule, §5.7). */
  overThreshold(scopeId: string): boolean {
    return this.totalTokens(scopeId) > this.thresholdTokens();
  }

  /**
   * Removes one item for Tier 2 of §5.7 and returns it, or null when the scope holds no such item or
   * the item may never be evicted: a system-zone item (constitution, tool descriptions: "never
   * evicted") or a pinned one. Whoever chose the id (a scorer model's answer), these stay.
   */
  evict(scopeId: string, ctxId: string): ContextItem | null {
    const scope = this.scopes.get(scopeId);
    if (!scope) return null;
    for (const zone of ALLOCABLE_ZONES) {
      const item = scope.zones[zone].get(ctxId);
      if (item === undefined) continue;
      if (item.pinned) return null;
      this.remove(scope, item);
      this.subs.evicted(scopeId, item, scope.turn);
      return item;
    }
    return null;
  }

  /** Records the scope's latest eviction for context inspection; forgotten with the scope. */
  noteEviction(scopeId: string, note: EvictionNote): void {
    const scope = this.scopes.get(scopeId);
    if (scope) scope.lastEviction = note;
  }

  lastEviction(scopeId: string): EvictionNote | null {
    return this.scopes.get(scopeId)?.lastEviction ?? null;
  }

  /**
   * §4.3 `render`: masks tool results past the threshold (§5.7 rendering step 2), then renders the
   * zones system → chronicle → memory → workspace. An unknown scope renders as "".
   */
  render(scopeId: string, turnNumber: number): string {
    const zones = this.zonesForRender(scopeId, turnNumber);
    return zones ? renderAll(zones, this.block) : '';
  }

  /** The same text as `render`, one section per non-empty zone (e.g. the system zone as the system message). */
  renderSections(scopeId: string, turnNumber: number): RenderedSection[] {
    const zones = this.zonesForRender(scopeId, turnNumber);
    return zones ? renderSections(zones, this.block) : [];
  }

  /**
   * §4.3 `enforce_budget`, Tier 1 of §5.7 (no model call): mask old tool results; if the chronicle
   * is over its budget, drop trivial acknowledgements; then evict by each zone's policy until every
   * zone fits. Pinned items are never evicted. The scorer tier (Tier 2) runs after this, in
   * `ContextEviction` (two-tier.ts), when `overThreshold` says Tier 1 was not enough.
   */
  enforceBudget(scopeId: string, turnNumber: number): EnforceResult {
    const scope = this.scopes.get(scopeId);
    if (!scope) return { evicted: [], masked: [], overBudget: [], overThreshold: false };
    scope.turn = turnNumber;
    const masked = this.mask(scope, turnNumber);
    const evicted: EvictedItem[] = [];
    const budgets = zoneBudgets(this.budget, this.profile(scopeId), scope.tokens.system).zones;

    if (scope.tokens.chronicle > budgets.chronicle) {
      for (const item of [...scope.zones.chronicle.values()]) {
        if (isTrivialAcknowledgement(item, turnNumber, this.trivialAck)) {
          this.remove(scope, item);
          evicted.push({ item, reason: 'trivial_acknowledgement' });
        }
      }
    }

    // Step 3: subscriptions no answer named for subscription_ttl_turns are deactivated (zero tokens, reversible).
    this.subs.expire(scopeId, turnNumber);

    const overBudget: AllocableZone[] = [];
    for (const zone of ALLOCABLE_ZONES) {
      if (scope.tokens[zone] <= budgets[zone]) continue;
      for (const item of evictionOrder(zone, [...scope.zones[zone].values()])) {
        if (scope.tokens[zone] <= budgets[zone]) break;
        this.remove(scope, item);
        this.subs.evicted(scopeId, item, turnNumber);
        evicted.push({ item, reason: 'zone_policy' });
      }
      if (scope.tokens[zone] > budgets[zone]) overBudget.push(zone);
    }

    return { evicted, masked, overBudget, overThreshold: this.overThreshold(scopeId) };
  }

  /** Forgets a scope entirely (a connection that closed). */
  removeScope(scopeId: string): void {
    this.scopes.delete(scopeId);
    this.subs.forget(scopeId);
  }

  /** §5.7 rendering steps 2 and 3: mask, then hand the zones over in render order. */
  private zonesForRender(scopeId: string, turnNumber: number): Record<ContextZone, Iterable<ContextItem>> | null {
    const scope = this.scopes.get(scopeId);
    if (!scope) return null;
    this.mask(scope, turnNumber);
    return {
      system: scope.zones.system.values(),
      chronicle: scope.zones.chronicle.values(),
      memory: scope.zones.memory.values(),
      workspace: scope.zones.workspace.values(),
    };
  }

  private scopeFor(scopeId: string): Scope {
    const parsed = ScopeId.safeParse(scopeId);
    if (!parsed.success) throw invalid(`scope id: ${parsed.error.issues[0]!.message}`);
    let scope = this.scopes.get(scopeId);
    if (!scope) {
      scope = {
        profile: this.budget.default_profile,
        turn: 0,
        lastEviction: null,
        zones: { system: new Map(), chronicle: new Map(), memory: new Map(), workspace: new Map() },
        tokens: emptyUsage(),
      };
      this.scopes.set(scopeId, scope);
    }
    return scope;
  }

  private put(scope: Scope, item: ContextItem): void {
    scope.zones[item.zone].set(item.ctx_id, item);
    scope.tokens[item.zone] += item.token_count;
  }

  private remove(scope: Scope, item: ContextItem): void {
    scope.zones[item.zone].delete(item.ctx_id);
    scope.tokens[item.zone] -= item.token_count;
  }

  /** §5.7 Tier 1 step 1 (also rendering step 2): replaces old tool results by their placeholder. */
  private mask(scope: Scope, turnNumber: number): string[] {
    const masked: string[] = [];
    const after = this.budget.observation_mask_after_turns;
    for (const zone of ALLOCABLE_ZONES) {
      const items = scope.zones[zone];
      for (const item of items.values()) {
        if (!shouldMask(item, turnNumber, after)) continue;
        const content = maskedPlaceholder(item);
        const replaced = Object.freeze({ ...item, content, masked: true, token_count: this.counter.count(content) });
        items.set(item.ctx_id, replaced);
        scope.tokens[zone] += replaced.token_count - item.token_count;
        masked.push(item.ctx_id);
      }
    }
    return masked;
  }
}
