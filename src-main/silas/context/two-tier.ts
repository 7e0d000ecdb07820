import type { ModelRole } from '../../../src-shared/llm/config.js';
import type { ScorerInput, StructuredOutputEvent } from '../../../src-shared/silas/agents.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ModelClient } from '../../llm/model-client.js';
import type { ContextScorer } from '../agents/definitions.js';
import type { ModelCallRecord } from '../agents/model-call.js';
import { SCORER_SYSTEM_PROMPT, scorerMessage } from '../agents/prompts.js';
import { CircuitBreaker } from './circuit-breaker.js';
import type { ContextManager, EvictedItem, EvictionNote } from './context-manager.js';
import { evictAggressively } from './fallback-eviction.js';
import { askScorer, evictScorerGroups, scorerInput, SCORER_TIMEOUT_MS, type ScorerVerdict } from './scorer-tier.js';
import type { TokenCounter } from './token-counter.js';

/**
 * `enforce_budget` of spec 002 §5.7 with both tiers (ADR-015), as §5.1 step 5 calls it: Tier 1
 * (the context manager's heuristics) always; then, only when total usage is still above
 * `eviction_threshold_pct`, Tier 2: the scorer model names groups to evict, and the deterministic
 * aggressive heuristic stands in for it (not set up, breaker open, timeout, failure, bad answer)
 * or finishes what its groups left. Every eviction is audited (`silas.stream.context_evicted`)
 * and the items are handed back for the Stream to store as episodes with their taint.
 */

/** Where the scorer's model calls are reported: the turn's meter and the ledger. */
interface ScorerHooks {
  onCall(record: ModelCallRecord, client: Pick<ModelClient, 'provider' | 'model'>): void;
  /** A repaired or fallback answer of the scorer (§5.1.0). */
  audit(event: StructuredOutputEvent): void;
}

/** The scorer of the `scorer` model role, or why there is none (no model set up for it, no key). */
export type ScorerSource = (hooks: ScorerHooks) => Promise<{ scorer: ContextScorer } | { scorer: null; problem: string }>;

/** The turn's meter (the Stream's TurnMeter): the scorer's prompt and calls count in the turn's usage. */
export interface EvictionMeter {
  countPrompt(tokens: number): void;
  add(role: ModelRole, record: ModelCallRecord, audit: Pick<AuditLog, 'append'>, at: { scope_id: string; turn: number }, client: Pick<ModelClient, 'provider' | 'model'>): void;
}

export interface ContextEvictionDeps {
  context: ContextManager;
  counter: TokenCounter;
  scorer: ScorerSource;
  audit: Pick<AuditLog, 'append'>;
  /** One breaker for the runtime's scorer model (§5.7: 3 failures, 5 minutes). */
  breaker?: CircuitBreaker;
  timeoutMs?: number;
  now: () => Date;
}

export interface EnforceRequest {
  scope: string;
  turn: number;
  /** The turn's signal: a cancelled turn stops the scorer call; what was evicted is still returned. */
  signal?: AbortSignal;
  meter?: EvictionMeter;
}

export interface TwoTierResult {
  /** Everything evicted by either tier, in order: the Stream stores each as an episode. */
  evicted: EvictedItem[];
  masked: string[];
  /** Still above the threshold: only pinned, system and current-turn items are left to give up. */
  overThreshold: boolean;
}

type ScorerOutcome = 'model' | 'repaired' | 'fallback' | 'timeout' | 'failed' | 'cancelled' | 'breaker_open' | 'not_configured' | 'nothing_offered';
type At = { scope_id: string; turn: number };

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export class ContextEviction {
  private readonly breaker: CircuitBreaker;

  constructor(private readonly deps: ContextEvictionDeps) {
    this.breaker = deps.breaker ?? new CircuitBreaker();
  }

  async enforce(request: EnforceRequest): Promise<TwoTierResult> {
    const { context } = this.deps;
    const { scope, turn } = request;
    const at = { scope_id: scope, turn };
    const tier1 = context.enforceBudget(scope, turn);
    const evicted = [...tier1.evicted];
    const whys: string[] = [];
    let tier: EvictionNote['tier'] = 'heuristic';
    if (tier1.evicted.length > 0) {
      const why = heuristicWhy(tier1.evicted);
      whys.push(why);
      this.record(at, 'heuristic', why, tier1.evicted, null);
    }
    if (tier1.overThreshold) {
      const scored = await this.scorerTier(at, request);
      evicted.push(...scored.evicted);
      if (scored.evicted.length > 0) {
        tier = 'scorer';
        whys.push(scored.why);
      }
      if (context.overThreshold(scope)) {
        const why = scored.outcome === 'model' || scored.outcome === 'repaired' ? "still above the threshold after the scorer's groups" : scored.why;
        const fallback = evictAggressively(context, scope, turn, scored.spare);
        evicted.push(...fallback);
        this.record(at, 'fallback', why, fallback, scored.outcome);
        if (fallback.length > 0) {
          tier = 'fallback';
          whys.push(`aggressive heuristic: ${why}`);
        }
      }
    }
    if (evicted.length > 0) {
      context.noteEviction(scope, {
        turn,
        tier,
        why: clip(whys.join('; '), 2000),
        at: this.deps.now().toISOString(),
        items: evicted.map(({ item, reason }) => ({ ctx_id: item.ctx_id, zone: item.zone, kind: item.kind, token_count: item.token_count, reason })),
      });
    }
    return { evicted, masked: tier1.masked, overThreshold: context.overThreshold(scope) };
  }

  /** The scorer, if it may and can be asked; its groups evicted. Never throws. */
  private async scorerTier(at: At, request: EnforceRequest): Promise<{ evicted: EvictedItem[]; spare: Set<string>; outcome: ScorerOutcome; why: string }> {
    const { context, audit } = this.deps;
    const none = (outcome: ScorerOutcome, why: string) => ({ evicted: [], spare: new Set<string>(), outcome, why });
    if (!this.breaker.allows()) {
      return none('breaker_open', `the scorer's circuit breaker is open after ${this.breaker.consecutiveFailures()} consecutive failures (tried again ${Math.round(this.breaker.cooldown / 60_000)} minutes after it opened)`);
    }
    let late = false;
    let fallbackReason: string | null = null;
    const hooks: ScorerHooks = {
      onCall: (record, client) => request.meter?.add('scorer', record, audit, at, client),
      audit: (event) => {
        if (late) return;
        if (event.kind === 'repaired') {
          audit.append('silas.agent.output_repaired', { ...at, agent: event.agent, first_error: event.first_error });
          return;
        }
        fallbackReason = event.reason;
        const { kind: _kind, ...data } = event;
        audit.append('silas.agent.output_fallback', { ...at, ...data });
      },
    };
    let source: Awaited<ReturnType<ScorerSource>>;
    try {
      source = await this.deps.scorer(hooks);
    } catch {
      // A client that cannot be built is a failed scorer, not a failed turn: Tier 1's evictions must still be stored.
      if (this.breaker.failed()) audit.append('silas.stream.scorer_breaker', { ...at, state: 'open', failures: this.breaker.consecutiveFailures(), cooldown_ms: this.breaker.cooldown });
      return none('failed', 'the scorer model could not be set up for the call');
    }
    if (source.scorer === null) return none('not_configured', `no scorer model: ${clip(source.problem, 300)}`);
    const input: ScorerInput = scorerInput(context, at.scope_id, at.turn);
    if (input.blocks.length === 0) return none('nothing_offered', 'nothing the scorer may evict: every item left is pinned, in the system zone or of this turn');
    request.meter?.countPrompt(this.deps.counter.count(SCORER_SYSTEM_PROMPT) + this.deps.counter.count(scorerMessage(input)));
    const verdict = await askScorer(source.scorer, input, { timeoutMs: this.deps.timeoutMs ?? SCORER_TIMEOUT_MS, signal: request.signal, onSettled: () => (late = true) });
    if (verdict.kind === 'answer') {
      if (this.breaker.succeeded()) audit.append('silas.stream.scorer_breaker', { ...at, state: 'closed', failures: 0, cooldown_ms: this.breaker.cooldown });
      const { evicted, reasons } = evictScorerGroups(context, at.scope_id, verdict.output, input);
      const why = reasons.length > 0 ? `scorer: ${reasons.join(' / ')}` : 'the scorer named no group that could be evicted';
      this.record(at, 'scorer', why, evicted, verdict.source);
      return { evicted, spare: new Set(verdict.output.keep_groups.flatMap((group) => group.block_ids)), outcome: verdict.source, why: clip(why, 1000) };
    }
    if (verdict.kind !== 'cancelled' && this.breaker.failed()) {
      audit.append('silas.stream.scorer_breaker', { ...at, state: 'open', failures: this.breaker.consecutiveFailures(), cooldown_ms: this.breaker.cooldown });
    }
    return none(verdict.kind, failureWhy(verdict, fallbackReason, this.deps.timeoutMs ?? SCORER_TIMEOUT_MS));
  }

  private record(at: At, tier: EvictionNote['tier'], why: string, items: readonly EvictedItem[], scorer: ScorerOutcome | null): void {
    const count = (zone: string) => items.filter(({ item }) => item.zone === zone).length;
    this.deps.audit.append('silas.stream.context_evicted', {
      ...at,
      tier,
      reason: clip(why, 1000),
      items: items.length,
      tokens: items.reduce((sum, { item }) => sum + item.token_count, 0),
      chronicle: count('chronicle'),
      memory: count('memory'),
      workspace: count('workspace'),
      scorer,
      over_threshold: this.deps.context.overThreshold(at.scope_id),
    });
  }
}

function heuristicWhy(evicted: readonly EvictedItem[]): string {
  const trivial = evicted.filter((entry) => entry.reason === 'trivial_acknowledgement').length;
  const zones = [...new Set(evicted.filter((entry) => entry.reason === 'zone_policy').map(({ item }) => item.zone))];
  const parts = [...(zones.length > 0 ? [`${zones.join(', ')} over budget (zone policy)`] : []), ...(trivial > 0 ? [`${trivial} trivial acknowledgement(s) dropped`] : [])];
  return parts.join('; ');
}

function failureWhy(verdict: Exclude<ScorerVerdict, { kind: 'answer' }>, fallbackReason: string | null, timeoutMs: number): string {
  switch (verdict.kind) {
    case 'timeout':
      return `the scorer did not answer within ${timeoutMs} ms`;
    case 'cancelled':
      return 'the turn was cancelled while the scorer ran';
    case 'failed':
      return 'the scorer call failed';
    case 'fallback':
      return fallbackReason === 'schema_invalid_twice' ? "the scorer's answer did not match ScorerOutput twice" : `the scorer call failed (${fallbackReason ?? 'unknown'})`;
  }
}
