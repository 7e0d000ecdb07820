import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { SqliteAuditLog } from '../audit/audit-log.js';
import { AuditRepository } from '../audit/repository.js';
import type { TrustedKeys } from '../audit/verify.js';
import { OwnerKeyVault, ownerAccountForHome, type OwnerSigner } from '../keys/owner-key.js';
import { PublicKeyRepository } from '../keys/public-keys.js';
import { KEYRING_SERVICE, type SecretStore } from '../keys/secret-store.js';
import { openDatabase } from '../store/database.js';
import { prepareHome } from './home.js';
import { homePaths, type HomePaths } from './paths.js';

export type KeySource = 'keyring' | 'database';

export interface Ledger {
  paths: HomePaths;
  db: Database.Database;
  audit: SqliteAuditLog;
  publicKeys: PublicKeyRepository;
  /** Present when the owner key could be loaded from the OS keyring. */
  signer: OwnerSigner | null;
  /** Where the keys that verify checkpoints came from. */
  keySource: KeySource;
  ownerFingerprint: string;
  /** True when this call created the database or the key. */
  created: { database: boolean; key: boolean };
  close(): void;
}

export interface OpenLedgerOptions {
  /** `init`: create the home, database and key when absent. */
  create: boolean;
  /**
   * `signer`: the owner key must be in the keyring (start, init, anything that signs).
   * `verify`: use the keyring key when reachable, else the public key recorded at init.
   */
  keys: 'signer' | 'verify';
  secretStore: SecretStore;
  now?: () => Date;
}

/**
 * Opens a data home's ledger: database (with migrations), owner key and audit log. Shared by
 * the runtime and every CLI command so they agree on what "this home" means.
 */
export function openLedger(home: string, options: OpenLedgerOptions): Ledger {
  const paths = homePaths(home);
  prepareHome(paths, options.create);
  const dbExisted = databaseExists(paths.database);
  const vault = new OwnerKeyVault(options.secretStore, ownerAccountForHome(home));
  const now = options.now ?? (() => new Date());

  // The keyring is probed before the database is created, so a machine without a keyring is
  // told so without being left with a half-initialised home.
  let signer: OwnerSigner | null = null;
  let keyCreated = false;
  if (options.keys === 'signer') {
    signer = vault.load();
    if (!signer && !options.create) vault.loadOrFail();
  } else {
    try {
      signer = vault.load();
    } catch {
      signer = null;
    }
  }

  const { db } = openDatabase(paths.database, { create: options.create, home, now: () => now().toISOString() });
  try {
    const publicKeys = new PublicKeyRepository(db);
    const registered = publicKeys.all();
    if (!signer && options.keys === 'signer' && options.create) {
      if (registered.length > 0) {
        throw new SilasError(
          ErrorCode.KeyMissing,
          `${home} was initialised with owner key ${registered.map((k) => k.fingerprint).join(', ')}, which is not in this OS keyring; unlock the keyring that holds it (a new key would orphan every signature), or use another --home`,
        );
      }
      signer = vault.ensure().signer;
      keyCreated = true;
    }
    if (signer && registered.length > 0 && !registered.some((k) => k.fingerprint === signer!.fingerprint)) {
      throw new SilasError(
        ErrorCode.KeyMissing,
        `the owner key in the keyring (${signer.fingerprint}) is not the key this home was initialised with (${registered.map((k) => k.fingerprint).join(', ')}); unlock the keyring that holds the original key, or use another --home`,
      );
    }
    if (signer && registered.length === 0) {
      publicKeys.register({ fingerprint: signer.fingerprint, publicKey: signer.publicKey, keyringService: KEYRING_SERVICE, keyringAccount: vault.account, createdAt: now().toISOString() });
    }
    const trusted: Map<string, Uint8Array> = new Map();
    let keySource: KeySource = 'keyring';
    if (signer) {
      trusted.set(signer.fingerprint, signer.publicKey);
    } else {
      keySource = 'database';
      for (const key of publicKeys.all()) trusted.set(key.fingerprint, key.publicKey);
    }
    const ownerFingerprint = signer?.fingerprint ?? publicKeys.all()[0]?.fingerprint ?? 'unknown';
    const audit = new SqliteAuditLog({ repository: new AuditRepository(db), signer: signer ?? undefined, trustedKeys: trusted as TrustedKeys, now });
    return {
      paths,
      db,
      audit,
      publicKeys,
      signer,
      keySource,
      ownerFingerprint,
      created: { database: !dbExisted, key: keyCreated },
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

function databaseExists(file: string): boolean {
  try {
    return statSync(file).size > 0;
  } catch {
    return false;
  }
}

/**
 * First use of a home is itself an audited decision: record which key now owns it and sign a
 * first checkpoint, so even an empty chain has an anchor. Returns whether anything was new.
 */
export function recordInitialisation(ledger: Ledger): boolean {
  if (!ledger.created.database && !ledger.created.key) return false;
  ledger.audit.append('runtime.initialised', { owner_fingerprint: ledger.ownerFingerprint, key_created: ledger.created.key });
  ledger.audit.writeCheckpoint();
  return true;
}
