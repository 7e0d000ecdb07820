import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { AccessLevels, DEFAULT_ACCESS_LEVEL, type AccessLevel, type AccessSnapshot } from '../../../src-shared/silas/access.js';
import type { TaintLevel } from '../../../src-shared/silas/execution.js';
import { GateName, type GateResult } from '../../../src-shared/silas/gates.js';
import type { AuditAppender } from '../../../src-shared/audit/events.js';

/**
 * The access controller of spec 002 §4.11 / §5.6: a deterministic state machine per connection,
 * driven only by gate results. Nothing an LLM says reaches it; the caller feeds it policy-lane
 * results (`recordGateResults`) or names a passed gate (`gatePassed`).
 */

export type AccessAuditSink = AuditAppender;

export interface CustomerContextRequest {
  connection_id: string;
  level: string;
  verified_gates: readonly string[];
}

/** Loads what the bot may know about a verified customer (§5.6 "customer context loading"). */
export interface CustomerContextLoader {
  load(request: CustomerContextRequest): JsonObject | null;
}

export interface AccessControllerDeps {
  connectionId: string;
  /** The owner's connection id (`"owner"` in single-user mode, §5.1). */
  ownerId?: string;
  /** The goal's `access_levels`; validated here. */
  levels: unknown;
  /** The owner's full toolset: the owner bypasses goal-scoped levels (§5.6). */
  ownerTools: readonly string[];
  audit: AccessAuditSink;
  /** Milliseconds since the epoch; injected so expiry is testable without waiting. */
  now?: () => number;
  customerContext?: CustomerContextLoader;
}

/** Validates a goal's `access_levels`; the error names the field. */
function parseAccessLevels(levels: unknown): AccessLevels {
  const parsed = AccessLevels.safeParse(levels);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SilasError(ErrorCode.InvalidArgs, `access_levels.${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

export class AccessController {
  readonly connectionId: string;
  private readonly owner: boolean;
  private readonly levels: ReadonlyMap<string, AccessLevel>;
  /** See `levelRanks`: by what a level requires, never by where it is written. */
  private readonly rank: ReadonlyMap<string, number>;
  private readonly ownerTools: readonly string[];
  private readonly audit: AccessAuditSink;
  private readonly now: () => number;
  private readonly loader: CustomerContextLoader | undefined;

  private level = DEFAULT_ACCESS_LEVEL;
  private readonly verified = new Set<string>();
  private grantedAt: number | null = null;
  private customer: JsonObject | null = null;

  constructor(deps: AccessControllerDeps) {
    const levels = parseAccessLevels(deps.levels);
    this.connectionId = deps.connectionId;
    this.owner = deps.connectionId === (deps.ownerId ?? 'owner');
    this.levels = new Map(Object.entries(levels));
    this.rank = levelRanks(levels);
    this.ownerTools = Object.freeze([...deps.ownerTools]);
    this.audit = deps.audit;
    this.now = deps.now ?? Date.now;
    this.loader = deps.customerContext;
  }

  get isOwner(): boolean {
    return this.owner;
  }

  /** The current level, after dropping an expired grant. */
  currentLevel(): string {
    this.expireIfDue();
    return this.level;
  }

  /** §4.11 gate_passed: records the gate and moves up to the highest level whose requirements are now all met. */
  gatePassed(gateName: string): void {
    if (!GateName.safeParse(gateName).success) throw new SilasError(ErrorCode.InvalidArgs, `gatePassed: "${gateName}" is not a gate name`);
    if (this.owner) return;
    this.expireIfDue();
    this.verified.add(gateName);
    const currentRank = this.rank.get(this.level) ?? -1;
    let target: string | null = null;
    for (const [name, level] of this.levels) {
      const rank = this.rank.get(name)!;
      if (rank <= currentRank || level.requires.length === 0) continue;
      if (level.requires.every((gate) => this.verified.has(gate)) && (target === null || rank > this.rank.get(target)!)) target = name;
    }
    if (target !== null) this.transition(target, gateName);
  }

  /** Feeds `gatePassed` from a gate run: only policy-lane `continue` results count; quality scores never grant access. */
  recordGateResults(results: readonly GateResult[]): void {
    for (const result of results) if (result.lane === 'policy' && result.action === 'continue') this.gatePassed(result.gate_name);
  }

  /**
   * §4.11 get_allowed_tools. `taint: "owner"` is the per-message owner bypass of §5.6; it must
   * come from the taint tracker's verification, never from message content.
   */
  getAllowedTools(options: { taint?: TaintLevel } = {}): string[] {
    if (this.owner || options.taint === 'owner') return [...this.ownerTools];
    this.expireIfDue();
    return [...(this.levels.get(this.level)?.tools ?? [])];
  }

  /** §4.11 get_customer_context: the verified customer's context, or null (always null for the owner). */
  getCustomerContext(): JsonObject | null {
    if (this.owner) return null;
    this.expireIfDue();
    return this.customer === null ? null : structuredClone(this.customer);
  }

  /** Goal deactivated or changed: non-owner state starts over (§5.6); the owner is unaffected. */
  reset(reason: string): void {
    if (this.owner) return;
    const from = this.level;
    this.clear();
    this.audit.append('access.reset', { connection_id: this.connectionId, from, to: this.level, reason });
  }

  snapshot(): AccessSnapshot {
    const tools = this.getAllowedTools();
    const expiresAfter = this.levels.get(this.level)?.expires_after ?? null;
    return {
      connection_id: this.connectionId,
      owner: this.owner,
      level: this.owner ? 'owner' : this.level,
      verified_gates: [...this.verified].sort(),
      granted_at: this.grantedAt === null ? null : new Date(this.grantedAt).toISOString(),
      expires_at: this.grantedAt === null || expiresAfter === null ? null : new Date(this.grantedAt + expiresAfter * 1000).toISOString(),
      tools,
    };
  }

  private transition(target: string, viaGate: string): void {
    const from = this.level;
    this.level = target;
    this.grantedAt = this.now();
    this.customer = this.loader?.load({ connection_id: this.connectionId, level: target, verified_gates: [...this.verified].sort() }) ?? null;
    const customerId = this.customer?.customer_id;
    this.audit.append('access.level_changed', {
      connection_id: this.connectionId,
      from,
      to: target,
      via_gate: viaGate,
      verified_gates: [...this.verified].sort(),
      customer_id: typeof customerId === 'string' || typeof customerId === 'number' ? customerId : null,
      granted_at: new Date(this.grantedAt).toISOString(),
    });
  }

  /**
   * §5.6: an expired level drops back to the default. The verified gates are cleared too:
   * otherwise the next unrelated gate to pass would re-grant the level without re-verification.
   * Reaching the exact expiry instant counts as expired (`>=`, as for budgets).
   */
  private expireIfDue(): void {
    if (this.grantedAt === null) return;
    const seconds = this.levels.get(this.level)?.expires_after ?? null;
    if (seconds === null || this.now() - this.grantedAt < seconds * 1000) return;
    const from = this.level;
    const grantedAt = new Date(this.grantedAt).toISOString();
    this.clear();
    this.audit.append('access.level_expired', { connection_id: this.connectionId, from, to: this.level, granted_at: grantedAt, expires_after: seconds });
  }

  private clear(): void {
    this.level = DEFAULT_ACCESS_LEVEL;
    this.grantedAt = null;
    this.verified.clear();
    this.customer = null;
  }
}

/** The Stream's `access_controller_factory` (§5.1): one controller per connection over one goal's levels. */
export function accessControllerFactory(base: Omit<AccessControllerDeps, 'connectionId'>): (connectionId: string) => AccessController {
  const levels = parseAccessLevels(base.levels);
  return (connectionId) => new AccessController({ ...base, levels, connectionId });
}
/**
 * A level that requires more gates ranks higher; equal counts rank by name. Definition order
 * would not do: the plan hash is over canonical JSON, which sorts keys, so reordering two
 * levels would change who gets which tools without changing the hash the owner approved.
 */
function levelRanks(levels: Readonly<Record<string, AccessLevel>>): ReadonlyMap<string, number> {
  const names = Object.keys(levels).sort((a, b) => levels[a]!.requires.length - levels[b]!.requires.length || (a < b ? -1 : a > b ? 1 : 0));
  return new Map(names.map((name, i) => [name, i]));
}
