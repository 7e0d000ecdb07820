import type { SqliteDatabase } from '../../../store/transaction.js';
import type { AuditLog } from '../../../audit/audit-log.js';
import { OwnerKeyVault, ownerAccountForHome } from '../../../keys/owner-key.js';
import { MemorySecretStore } from '../../../keys/secret-store.js';
import { KeyringStandingGrants } from '../grants.js';
import { StandingApprovalService } from '../service.js';

/**
 * A standing-approval service whose owner key and grant record share one in-memory keyring,
 * as the runtime's share the OS keyring (for tests that are not about the keyring).
 */
export function testStandingService(db: SqliteDatabase, audit: AuditLog, home = '/silas-test-home'): StandingApprovalService {
  const keyring = new MemorySecretStore();
  const signer = new OwnerKeyVault(keyring, ownerAccountForHome(home)).ensure().signer;
  return new StandingApprovalService(db, audit, signer, new KeyringStandingGrants(keyring, home));
}
