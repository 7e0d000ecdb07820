import { randomBytes } from 'node:crypto';
import { inImmediateTransaction, type SqliteDatabase } from '../store/transaction.js';
import type { JsonObject } from '../../src-shared/schemas/json.js';
import {
  ApprovalDecision,
  ApprovalToken,
  MAX_EXECUTIONS_LIMIT,
  Sha256Hex,
  type ApprovalCheck,
  type ApprovalReasonCode,
  type ApprovalScope,
} from '../../src-shared/silas/approval.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { trustedKeys, type OwnerSigner } from '../keys/owner-key.js';
import { ConsumptionConflict, ConsumptionLedger } from '../store/repositories/consumption-ledger.js';
import { NonceDomain, NonceReplayError, SqliteNonceStore, execBinding } from '../store/repositories/nonce-store.js';
import { approvalSigningBytes, deriveTokenId, resolveApprovalStrength, type ScopeMinStrength } from './signing.js';
import { refusalAuditData, type ApprovalAuditSink } from './audit.js';
import { refuse, short, validateToken, type ApprovalSubject, type Refusal, type ValidationContext } from './validate.js';
export type { ApprovalSubject } from './validate.js';

export interface IssueOptions {
  scope?: ApprovalScope;
  ttlMs?: number;
  maxExecutions?: number;
}

export interface VerifyOptions {
  /** Required for standing tokens: the task spawned by the goal given as the subject, with the spawn-policy hash it conforms to. */
  spawned?: ApprovalSubject;
  /** The scope the caller is authorising; default `full_plan` (`standing` when `spawned` is set). */
  scope?: ApprovalScope;
  /**
   * Runs inside the consuming transaction, after the consumption: what the approval lets through
   * is recorded (an MCP proxy's "allowed" entry) in the same commit, or, if it throws, nothing is.
   */
  onConsumed?: (token: ApprovalToken) => void;
}

export interface CheckOptions {
  scope?: ApprovalScope;
}

export type VerifyResult =
  | { ok: true; reason: 'Valid'; token: ApprovalToken; executionNonce: string; executionIndex: number; consumptionKey: string }
  | { ok: false; code: ApprovalReasonCode; reason: string };

export interface ApprovalEngineDeps {
  db: SqliteDatabase;
  audit: ApprovalAuditSink;
  /** Needed only to issue tokens. */
  signer?: OwnerSigner;
  /** Owner public keys by fingerprint; default: the signer's key alone. */
  trustedKeys?: () => ReadonlyMap<string, Uint8Array>;
  now?: () => Date;
  randomNonce?: () => string;
  /** Spec default `approval.default_ttl_minutes: 30`. */
  defaultTtlMs?: number;
  /** Upper bound on any token's lifetime (standing approvals are long but not unbounded). */
  maxTtlMs?: number;
  /** Tolerated clock difference for a token issued "in the future" by another machine. */
  clockSkewMs?: number;
  /** `conditional` verdicts authorise only when the caller enforces `conditions`. */
  allowConditional?: boolean;
  scopeMinStrength?: ScopeMinStrength;
}

const DEFAULT_TTL_MS = 30 * 60_000;
const DEFAULT_MAX_TTL_MS = 366 * 24 * 60 * 60_000;


/**
 * The approval engine of spec 002 §5.11: mints owner-signed tokens bound to a subject's hash (a plan, a tool call, a gate payload), and
 * verifies them — `verify` consuming one execution atomically, `check` consuming nothing.
 */
export class ApprovalEngine {
  private readonly ledger: ConsumptionLedger;
  private readonly nonces: SqliteNonceStore;
  private readonly now: () => Date;
  private readonly randomNonce: () => string;
  private readonly trustedKeys: () => ReadonlyMap<string, Uint8Array>;

  constructor(private readonly deps: ApprovalEngineDeps) {
    this.ledger = new ConsumptionLedger(deps.db);
    this.now = deps.now ?? (() => new Date());
    this.nonces = new SqliteNonceStore(deps.db, this.now);
    this.randomNonce = deps.randomNonce ?? (() => randomBytes(16).toString('hex'));
    const own = trustedKeys(deps.signer);
    this.trustedKeys = deps.trustedKeys ?? (() => own);
  }

  /** §5.11 issue_token: signs the ten fields of §3.6 with the owner key. */
  issueToken(subject: ApprovalSubject, decisionInput: unknown, options: IssueOptions = {}): ApprovalToken {
    const signer = this.deps.signer;
    if (!signer) throw new SilasError(ErrorCode.KeyMissing, 'issuing an approval needs the owner key; unlock the OS keyring');
    const decoded = ApprovalDecision.safeParse(decisionInput);
    if (!decoded.success) throw badInput(`decision.${decoded.error.issues[0]!.path.join('.')}: ${decoded.error.issues[0]!.message}`);
    const decision = decoded.data;
    const scope = options.scope ?? 'full_plan';
    if (!Sha256Hex.safeParse(subject.hash).success) throw badInput(`subject.hash must be the 64-hex SHA-256 hash of the ${String(subject.kind).slice(0, 40)} being approved`);
    const maxExecutions = options.maxExecutions ?? 1;
    if (!Number.isInteger(maxExecutions) || maxExecutions < 1 || maxExecutions > MAX_EXECUTIONS_LIMIT) {
      throw badInput(`maxExecutions must be an integer from 1 to ${MAX_EXECUTIONS_LIMIT}`);
    }
    if (scope !== 'standing' && maxExecutions !== 1) {
      throw badInput(`maxExecutions ${maxExecutions} is only allowed for a standing approval; a ${scope} approval authorises one execution`);
    }
    const ttlMs = options.ttlMs ?? this.deps.defaultTtlMs ?? DEFAULT_TTL_MS;
    const maxTtl = this.deps.maxTtlMs ?? DEFAULT_MAX_TTL_MS;
    if (!Number.isInteger(ttlMs) || ttlMs < 1000 || ttlMs > maxTtl) throw badInput(`ttlMs must be an integer from 1000 to ${maxTtl}`);
    const conditions: JsonObject = { ...decision.conditions };
    if (scope === 'standing') {
      const bound = subject.spawnPolicyHash;
      if (!bound || !Sha256Hex.safeParse(bound).success) {
        throw badInput('a standing approval needs the goal spawn-policy hash (subject.spawnPolicyHash); refusing to issue an unbound standing token');
      }
      if (conditions.spawn_policy_hash !== undefined && conditions.spawn_policy_hash !== bound) {
        throw badInput('decision.conditions.spawn_policy_hash differs from the goal spawn-policy hash');
      }
      conditions.spawn_policy_hash = bound;
    }
    const issuedAt = this.now();
    const payload = {
      plan_hash: subject.hash,
      work_item_id: subject.id,
      scope,
      verdict: decision.verdict,
      nonce: this.randomNonce(),
      approval_strength: resolveApprovalStrength(scope, decision.approval_strength, this.deps.scopeMinStrength),
      issued_at: issuedAt.toISOString(),
      expires_at: new Date(issuedAt.getTime() + ttlMs).toISOString(),
      max_executions: maxExecutions,
      conditions,
    };
    const token = ApprovalToken.parse({
      token_id: deriveTokenId(payload),
      ...payload,
      signature: signer.sign(approvalSigningBytes(payload)).toString('base64'),
      executions_used: 0,
      execution_nonces: [],
      key_fingerprint: signer.fingerprint,
    });
    this.deps.audit.append('silas.approval.issued', {
      token_id: token.token_id,
      work_item_id: token.work_item_id,
      plan_hash: token.plan_hash,
      scope: token.scope,
      verdict: token.verdict,
      max_executions: token.max_executions,
      expires_at: token.expires_at,
      key_fingerprint: token.key_fingerprint,
    });
    return token;
  }

  /**
   * §5.11 verify: full verification that consumes one execution. The consumption key, the
   * execution nonce, the counter and the audit entry commit in one `BEGIN IMMEDIATE`
   * transaction, so of two concurrent uses at most one succeeds, in any number of processes.
   */
  verify(tokenInput: unknown, subject: ApprovalSubject, verifyOptions: VerifyOptions = {}): VerifyResult {
    const options = { scope: verifyOptions.scope, spawned: verifyOptions.spawned };
    const validated = validateToken(tokenInput, subject, 'verify', options, this.context());
    if (!validated.ok) return this.refused('verify', tokenInput, subject, validated);
    const { token, boundHash } = validated;
    const consume = () => {
      // Read the clock under the write lock: waiting for it may have outlived the token.
      const now = this.now();
      if (now.getTime() >= Date.parse(token.expires_at)) return refuse('E_APPROVAL_EXPIRED', `the approval expired at ${token.expires_at}; ask for a new one`);
      const at = now.toISOString();
      const state = this.ledger.ensureToken(token, at);
      if (this.ledger.find(token.token_id, boundHash)) {
        return refuse('E_APPROVAL_REPLAY', `token ${short(token.token_id)} already authorised ${boundHash === token.plan_hash ? `this ${String(subject.kind).slice(0, 40)}` : 'this spawned task'}; a replay`);
      }
      if (state.executionsUsed >= state.maxExecutions) {
        return refuse('E_APPROVAL_EXHAUSTED', `token ${short(token.token_id)} has used all ${state.maxExecutions} of its executions`);
      }
      const executionNonce = this.randomNonce();
      const binding = execBinding(token.token_id, boundHash, executionNonce);
      if (this.nonces.isUsed(NonceDomain.Execution, binding)) return refuse('E_APPROVAL_REPLAY', 'execution nonce already used; a replay');
      this.nonces.record(NonceDomain.Execution, binding);
      const used = this.ledger.consume(token.token_id, boundHash, state.executionsUsed, executionNonce, at);
      this.deps.audit.append('silas.approval.consumed', {
        token_id: token.token_id,
        work_item_id: subject.id,
        plan_hash: token.plan_hash,
        bound_hash: boundHash,
        ...(options.spawned ? { spawned_task_id: options.spawned.id } : {}),
        scope: token.scope,
        execution_index: used.executionIndex,
        max_executions: token.max_executions,
        consumption_key: used.consumptionKey,
        key_fingerprint: token.key_fingerprint,
      });
      verifyOptions.onConsumed?.(token);
      return { ok: true as const, used };
    };
    let outcome: Refusal | { ok: true; used: ReturnType<ConsumptionLedger['consume']> };
    try {
      outcome = inImmediateTransaction(this.deps.db, consume);
    } catch (error) {
      if (error instanceof ConsumptionConflict || error instanceof NonceReplayError || isUniqueViolation(error)) {
        outcome = refuse('E_APPROVAL_REPLAY', `token ${short(token.token_id)} was consumed concurrently by another verification; a replay`);
      } else {
        const refusal = refuse('E_APPROVAL_STORE', `the approval could not be recorded (${(error as Error).message}); nothing was authorised`);
        return this.refused('verify', tokenInput, subject, refusal);
      }
    }
    if (!outcome.ok) return this.refused('verify', tokenInput, subject, outcome);
    const { used } = outcome;
    return {
      ok: true,
      reason: 'Valid',
      token: { ...token, executions_used: used.executionIndex, execution_nonces: this.ledger.executionNonces(token.token_id) },
      executionNonce: used.executionNonce,
      executionIndex: used.executionIndex,
      consumptionKey: used.consumptionKey,
    };
  }

  /**
   * §5.11 check: the non-consuming gate at execution entry. Passes only if a `verify` already
   * consumed this token for exactly this subject (its current plan hash), so an item edited
   * after authorisation, or a spawned task never verified, is refused.
   */
  check(tokenInput: unknown, subject: ApprovalSubject, options: CheckOptions = {}): ApprovalCheck {
    const validated = validateToken(tokenInput, subject, 'check', options, this.context());
    if (!validated.ok) return this.refused('check', tokenInput, subject, validated);
    const { token, boundHash } = validated;
    const state = this.ledger.state(token.token_id);
    if (!state || state.executionsUsed < 1) {
      return this.refused('check', tokenInput, subject, refuse('E_APPROVAL_NOT_CONSUMED', 'the token was never verified (consumed) for execution; call verify() at the authorisation site first'));
    }
    const consumption = this.ledger.find(token.token_id, boundHash);
    if (!consumption) {
      const code = token.scope === 'standing' ? 'E_APPROVAL_NOT_CONSUMED' : 'E_APPROVAL_PLAN_HASH';
      return this.refused('check', tokenInput, subject, refuse(code, `token ${short(token.token_id)} authorised no ${String(subject.kind).slice(0, 40)} with hash ${short(subject.hash)}`));
    }
    this.deps.audit.append('silas.approval.checked', {
      token_id: token.token_id,
      work_item_id: subject.id,
      bound_hash: boundHash,
      execution_index: consumption.executionIndex,
      executions_used: state.executionsUsed,
    });
    return { ok: true, reason: 'Valid' };
  }

  private context(): ValidationContext {
    return {
      trustedKeys: this.trustedKeys(),
      now: this.now(),
      clockSkewMs: this.deps.clockSkewMs ?? 60_000,
      allowConditional: this.deps.allowConditional ?? false,
    };
  }

  private refused(op: 'verify' | 'check', tokenInput: unknown, subject: ApprovalSubject, refusal: Refusal): Refusal {
    this.deps.audit.append('silas.approval.refused', refusalAuditData(op, tokenInput, subject, refusal.code, refusal.reason));
    return refusal;
  }
}

function badInput(message: string): SilasError {
  return new SilasError(ErrorCode.InvalidArgs, `issueToken: ${message}`);
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
