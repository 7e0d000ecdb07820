import type Database from 'better-sqlite3';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import { StandingApprovalRepository, type StandingApproval } from './standing-approvals.js';

/** Creating and revoking standing approvals: each change and its audit entry in one transaction. */
export class StandingApprovalService {
  private readonly repo: StandingApprovalRepository;

  constructor(
    private readonly db: Database.Database,
    private readonly audit: AuditLog,
    private readonly signer: OwnerSigner,
  ) {
    this.repo = new StandingApprovalRepository(db);
  }

  create(binding: { server: string; tool: string; argsHash: string; argsDisplay: string }): StandingApproval {
    const run = this.db.transaction(() => {
      const approval = this.repo.create(binding, this.signer);
      this.audit.append('approvals.standing_created', { standing_id: approval.id, server: approval.server, tool: approval.tool, args_hash: approval.argsHash, key_fingerprint: approval.keyFingerprint });
      return approval;
    });
    return run.immediate();
  }

  list(): StandingApproval[] {
    return this.repo.list();
  }

  revoke(id: string): StandingApproval {
    const run = this.db.transaction(() => {
      const revoked = this.repo.revoke(id);
      if (!revoked) throw new SilasError(ErrorCode.InvalidArgs, `no active standing approval ${id}; it was already revoked`);
      this.audit.append('approvals.standing_revoked', { standing_id: id, server: revoked.server, tool: revoked.tool, args_hash: revoked.argsHash });
      return revoked;
    });
    return run.immediate();
  }
}
