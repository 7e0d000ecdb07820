import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { SqliteAuditLog } from '../audit/audit-log.js';
import type { LedgerKeys } from '../audit/ledger-keys.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { LedgerKeyVault } from '../keys/ledger-key.js';
import { OwnerKeyVault, type OwnerSigner } from '../keys/owner-key.js';
import type { SecretStore } from '../keys/secret-store.js';
import { openDatabase } from '../store/database.js';
import { testAuditEvents, type TestAuditEvents } from './audit-events.js';
import { sqliteConnection } from '../store/transaction.js';

export interface TestLedger {
  file: string;
  db: Database.Database;
  signer: OwnerSigner;
  keys: LedgerKeys;
  audit: SqliteAuditLog<TestAuditEvents>;
  /** A second audit log over the same file, as a verifier in another process would open it. */
  reopen(): SqliteAuditLog<TestAuditEvents>;
}

/**
 * A stand-in keyring in a JSON file beside a test database, so that worker threads and child
 * processes of a test reach the same ledger and owner keys. Tests only: real homes keep their
 * keys in the OS keyring (keys/secret-store.ts).
 */
class TestFileKeyring implements SecretStore {
  readonly description = 'test keyring file';
  constructor(private readonly file: string) {}
  private read(): Record<string, string> {
    return existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>) : {};
  }
  get(account: string): string | null {
    return this.read()[account] ?? null;
  }
  set(account: string, secret: string): void {
    const all = this.read();
    all[account] = secret;
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
  delete(account: string): boolean {
    const all = this.read();
    if (!(account in all)) return false;
    delete all[account];
    writeFileSync(this.file, JSON.stringify(all), { mode: 0o600 });
    return true;
  }
}

/** The keys of the test ledger at `dbFile` (created on first use), for any thread or process of the test. */
export function testLedgerKeys(dbFile: string): LedgerKeys {
  const store = new TestFileKeyring(`${dbFile}.test-keyring.json`);
  const signer = new OwnerKeyVault(store, 'owner-test').ensure().signer;
  const vault = new LedgerKeyVault(store, dbFile);
  const secret = vault.load() ?? vault.create(0);
  return { chain: secret.chain, keyedFrom: secret.keyedFrom, anchors: secret.anchors, signer };
}

/** A real SQLite ledger in `dir` with test-file keys (for tests that are not about the keyring). */
export function createTestLedger(dir: string): TestLedger {
  const file = join(dir, 'silas.db');
  const db = sqliteConnection(openDatabase(file, { create: true }).db);
  const keys = testLedgerKeys(file);
  const make = (database: Database.Database) => new SqliteAuditLog({ repository: new AuditRepository(database), keys, catalogue: testAuditEvents });
  return {
    file,
    db,
    signer: keys.signer,
    keys,
    audit: make(db),
    reopen: () => make(sqliteConnection(openDatabase(file, { create: false }).db)),
  };
}

/** A ledger of `count` test entries with a signed checkpoint after entry `checkpointAt` (when given). */
export function ledgerWith(dir: string, count: number, checkpointAt?: number): TestLedger {
  const ledger = createTestLedger(dir);
  for (let i = 0; i < count; i += 1) {
    ledger.audit.append('test.entry', { seq: i, note: `entry ${i}` });
    if (i === checkpointAt) ledger.audit.writeCheckpoint();
  }
  return ledger;
}
