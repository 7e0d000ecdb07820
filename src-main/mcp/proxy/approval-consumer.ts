import { inImmediateTransaction, type SqliteDatabase } from '../../store/transaction.js';
import { isKeyViolation, ToolCallNonceRepository } from '../../store/repositories/tool-call-nonces.js';
import { StandingApprovalRepository, type StandingLookup } from '../../approvals/standing-approvals.js';
import { NO_STANDING_GRANTS, type StandingGrants } from '../../approvals/standing-grants.js';
import { checkToolCallApproval, type SignedToolCallApproval, type ToolCallBinding } from '../../approvals/tool-call-approval.js';

export type Consumption = { ok: true; nonce: string; keyFingerprint: string } | { ok: false; reason: string };

/**
 * Verifies a signed tool-call approval and consumes it: the nonce goes under its UNIQUE key in
 * the same `BEGIN IMMEDIATE` transaction that appends the audit entry letting the call through
 * (DESIGN invariants 1 and 3). A second use of the nonce — in this proxy or any other process
 * on the same home — violates the key and is refused; nothing is forwarded without the entry.
 */
export class ApprovalConsumer {
  private readonly nonces: ToolCallNonceRepository;
  private readonly standingApprovals: StandingApprovalRepository;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly trustedKeys: () => ReadonlyMap<string, Uint8Array>,
    /** The keyring's record of standing approvals in force; without it none is honoured. */
    private readonly standingGrants: StandingGrants | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.standingApprovals = new StandingApprovalRepository(db, now);
    this.nonces = new ToolCallNonceRepository(db);
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

  /** `recordAllowed` appends the audit entry; it runs inside the transaction. */
  consume(approval: unknown, binding: ToolCallBinding, recordAllowed: (nonce: string, keyFingerprint: string) => void): Consumption {
    const now = this.now();
    const check = checkToolCallApproval(approval, binding, this.trustedKeys(), now);
    if (!check.ok) return check;
    const signed = approval as SignedToolCallApproval;
    const run = () => {
      this.nonces.record({
        nonce: check.nonce,
        server: binding.server,
        tool: binding.tool,
        sessionId: binding.sessionId,
        requestIdJson: JSON.stringify(binding.requestId),
        keyFingerprint: signed.keyFingerprint,
        expiresAt: signed.payload.expiresAt,
        usedAt: now.toISOString(),
      });
      recordAllowed(check.nonce, signed.keyFingerprint);
    };
    try {
      inImmediateTransaction(this.db, run);
    } catch (error) {
      if (isKeyViolation(error)) {
        return { ok: false, reason: `approval nonce ${check.nonce} was already used (a replayed approval)` };
      }
      throw error;
    }
    return { ok: true, nonce: check.nonce, keyFingerprint: signed.keyFingerprint };
  }
}
