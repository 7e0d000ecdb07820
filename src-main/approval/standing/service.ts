import { inImmediateTransaction, type SqliteDatabase } from '../../store/transaction.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { OwnerSigner } from '../../keys/owner-key.js';
import { refusalReason, SignedStandingApprovals, type StandingApproval } from './approvals.js';
import type { StandingGrants } from './grants.js';

/**
 * Creating, listing and revoking standing approvals. Each change, its audit entry and its
 * keyring record change happen in one transaction; the keyring is written last, so when it
 * refuses the row and the entry roll back, and a failed commit after it leaves at worst a
 * keyring id without a row, which honours nothing.
 */
export class StandingApprovalService {
  private readonly repo: SignedStandingApprovals;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly audit: AuditLog,
    private readonly signer: OwnerSigner,
    private readonly grants: StandingGrants,
  ) {
    this.repo = new SignedStandingApprovals(db);
  }

  create(binding: { server: string; tool: string; argsHash: string; argsDisplay: string }): StandingApproval {
    return inImmediateTransaction(this.db, () => {
      const approval = this.repo.create(binding, this.signer);
      this.audit.append('approvals.standing_created', { standing_id: approval.id, server: approval.server, tool: approval.tool, args_hash: approval.argsHash, key_fingerprint: approval.keyFingerprint });
      this.grants.add(approval.id);
      return approval;
    });
  }

  /**
   * The standing approvals in force, as the proxy would judge them. A keyring id whose row has
   * gone is dropped from the record (audited): a grant deleted from the database stays gone,
   * even if the row is later restored.
   */
  list(): StandingApproval[] {
    return inImmediateTransaction(this.db, () => {
      const view = this.grants.read();
      const rows = this.repo.list(true);
      const present = new Set(rows.map((a) => a.id));
      for (const id of view.active) {
        if (present.has(id)) continue;
        this.audit.append('approvals.standing_revoked', { standing_id: id, reason: 'its row is missing from the database; revoked so a restored copy is not honoured' });
        this.grants.remove(id);
      }
      return rows.filter((a) => refusalReason(a, view) === null);
    });
  }

  /** Only the keyring record decides whether `id` is in force, so an edited `revoked_at` neither blocks nor repeats a revocation. */
  revoke(id: string): { id: string } {
    return inImmediateTransaction(this.db, () => {
      if (!this.grants.read().active.has(id)) {
        throw new SilasError(ErrorCode.InvalidArgs, `no active standing approval ${id}; it was already revoked (or never granted); refresh the Policies page`);
      }
      const row = this.repo.markRevoked(id);
      const binding: JsonObject = row ? { server: row.server, tool: row.tool, args_hash: row.argsHash } : { reason: 'its row is missing from the database' };
      this.audit.append('approvals.standing_revoked', { standing_id: id, ...binding });
      this.grants.remove(id);
      return { id };
    });
  }
}
