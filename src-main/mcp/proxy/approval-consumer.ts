import type { AuditAppender } from '../../../src-shared/audit/events.js';
import type { SqliteDatabase } from '../../store/transaction.js';
import { SignedStandingApprovals, type StandingLookup } from '../../approval/standing/approvals.js';
import { NO_STANDING_GRANTS, type StandingGrants } from '../../approval/standing/grants.js';
import { TOOL_CALL_SCOPE, toolCallSubject, type ToolCallBinding } from '../../approval/tool-call.js';
import type { ApprovalReasonCode } from '../../../src-shared/silas/approval.js';
import { ApprovalEngine } from '../../approval/engine.js';

export type Consumption = { ok: true; nonce: string; keyFingerprint: string } | { ok: false; reason: string };

/**
 * The proxy's side of a person's "yes": the approval engine (the one that verifies plan tokens)
 * verifies the token against this exact call and consumes it, under the engine's UNIQUE-keyed
 * consumption ledger and nonce store, in the same `BEGIN IMMEDIATE` transaction that appends the
 * audit entry letting the call through (DESIGN invariants 1 and 3). A second use — in this proxy
 * or any other process on the same home — is refused as a replay; nothing is forwarded without
 * the entry. Refusals are audited by the engine (`silas.approval.refused`).
 */
export class ApprovalConsumer {
  private readonly engine: ApprovalEngine;
  private readonly standingApprovals: SignedStandingApprovals;

  constructor(
    db: SqliteDatabase,
    audit: AuditAppender,
    trustedKeys: () => ReadonlyMap<string, Uint8Array>,
    /** The keyring's record of standing approvals in force; without it none is honoured. */
    private readonly standingGrants: StandingGrants | undefined,
    now: () => Date = () => new Date(),
  ) {
    this.engine = new ApprovalEngine({ db, audit, trustedKeys, now });
    this.standingApprovals = new SignedStandingApprovals(db, now);
  }

  /**
   * The "always allow" in force for exactly this server, tool and arguments: signed by the
   * keyring's owner key and listed by the keyring record, both read on every call so a
   * revocation in the cockpit applies at once. Matching rows that are not in force are
   * returned as refusals for the ledger.
   */
  standing(server: string, normalizedTool: string, argsHash: string): StandingLookup {
    return this.standingApprovals.findValid(server, normalizedTool, argsHash, this.standingGrants ?? NO_STANDING_GRANTS);
  }

  /** `recordAllowed` appends the audit entry; it runs inside the consuming transaction. */
  consume(token: unknown, binding: ToolCallBinding, recordAllowed: (nonce: string, keyFingerprint: string) => void): Consumption {
    const verified = this.engine.verify(token, toolCallSubject(binding), {
      scope: TOOL_CALL_SCOPE,
      onConsumed: (t) => recordAllowed(t.nonce, t.key_fingerprint),
    });
    if (!verified.ok) return { ok: false, reason: describeRefusal(verified.code, verified.reason, token, binding) };
    return { ok: true, nonce: verified.token.nonce, keyFingerprint: verified.token.key_fingerprint };
  }
}

/**
 * The engine's refusal in the words of a tool call. A token for another call fails the subject
 * binding; its signed conditions (trusted here: the signature was checked before the binding)
 * say which part of the call differs, which is what the person needs to know.
 */
function describeRefusal(code: ApprovalReasonCode, reason: string, token: unknown, binding: ToolCallBinding): string {
  if (code === 'E_APPROVAL_REPLAY') return 'approval was already used (a replayed approval)';
  if (code === 'E_APPROVAL_EXPIRED') return 'approval has expired';
  if (code !== 'E_APPROVAL_WORK_ITEM' && code !== 'E_APPROVAL_PLAN_HASH') return reason;
  const signed = ((token as { conditions?: Record<string, unknown> }).conditions ?? {}) as Record<string, unknown>;
  if (signed.server !== binding.server) return 'approval is for another server';
  if (signed.tool !== binding.tool) return 'approval is for another tool';
  if (signed.session_id !== binding.sessionId) return 'approval is for another proxy session';
  if (signed.request_id !== binding.requestId) return 'approval is for another request id';
  if (signed.args_hash !== binding.argsHash) return 'approval is for other arguments';
  return 'approval is for another call';
}
