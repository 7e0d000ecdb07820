import { ApprovalService } from '../approvals/approval-service.js';
import type { AuditLog } from '../audit/audit-log.js';
import { OwnerKeyVault } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';

/** A real approval service over an in-memory owner key, for tests that need the handlers but not the keyring. */
export function testSigner() {
  return new OwnerKeyVault(new MemorySecretStore(), 'owner-test').ensure().signer;
}

export function testApprovalService(audit: AuditLog): ApprovalService {
  const signer = testSigner();
  return new ApprovalService({ audit, signer, notifier: { notify() {} }, onChange() {} });
}
