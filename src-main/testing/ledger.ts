import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { SqliteAuditLog } from '../audit/audit-log.js';
import { AuditRepository } from '../audit/repository.js';
import { OwnerKeyVault, type OwnerSigner } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { openDatabase } from '../store/database.js';

export interface TestLedger {
  file: string;
  db: Database.Database;
  signer: OwnerSigner;
  audit: SqliteAuditLog;
  /** A second audit log over the same file, as a verifier in another process would open it. */
  reopen(): SqliteAuditLog;
}

/** A real SQLite ledger in `dir` with an in-memory owner key (for tests that are not about the keyring). */
export function createTestLedger(dir: string, signer?: OwnerSigner): TestLedger {
  const file = join(dir, 'silas.db');
  const { db } = openDatabase(file, { create: true });
  const owner = signer ?? new OwnerKeyVault(new MemorySecretStore(), 'owner-test').ensure().signer;
  const trustedKeys = new Map([[owner.fingerprint, owner.publicKey as Uint8Array]]);
  const make = (database: Database.Database) => new SqliteAuditLog({ repository: new AuditRepository(database), signer: owner, trustedKeys });
  return {
    file,
    db,
    signer: owner,
    audit: make(db),
    reopen: () => make(openDatabase(file, { create: false }).db),
  };
}
