import { statSync } from 'node:fs';
import type { SqliteDatabase } from '../store/transaction.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { SqliteAuditLog } from '../audit/audit-log.js';
import { CHECKPOINT_MAX_AGE_MS } from '../audit/checkpointer.js';
import { verifyLegacyChain } from '../audit/legacy.js';
import { LedgerTamperError, type LedgerKeys } from '../audit/ledger-keys.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { LedgerKeyVault, type LedgerSecret } from '../keys/ledger-key.js';
import { OwnerKeyVault, ownerAccountForHome, trustedKeys, type OwnerSigner } from '../keys/owner-key.js';
import { PublicKeyRepository } from '../store/repositories/public-keys.js';
import { KEYRING_SERVICE, type SecretStore } from '../keys/secret-store.js';
import { StateSeals } from '../keys/sealed-state.js';
import { closeUpgradeWindow } from '../aip/policy/in-force.js';
import { openDatabase } from '../store/database.js';
import { prepareHome } from '../home/home.js';
import { homePaths, type HomePaths } from '../home/paths.js';
import { closeDatabase } from '../store/transaction.js';

export interface Ledger {
  paths: HomePaths;
  db: SqliteDatabase;
  audit: SqliteAuditLog;
  /** Present when the owner key could be loaded from the OS keyring. */
  signer: OwnerSigner | null;
  /**
   * The only keys whose signatures authorise anything: the owner key from the OS keyring, or
   * none when the keyring cannot be reached (authorisation then fails closed). Keys listed in
   * the database are never trusted (DESIGN invariant 9).
   */
  trustedKeys(): ReadonlyMap<string, Uint8Array>;
  ownerFingerprint: string;
  /** The ids among `ids` that name committed entries: an entry of a rolled-back transaction names nothing. */
  committed(ids: readonly string[]): string[];
  /**
   * Seals for state in the home that decides what happens (docs/architecture.md §2 "Sealed
   * state"): made and checked with the keyring's keys; refusals are appended to this ledger.
   */
  seals: StateSeals;
  /** True when this call created the database or the key. */
  created: { database: boolean; key: boolean };
  /** Checkpoints what is unprotected, then closes the database (raises a tamper error rather than sign over one). */
  close(): void;
}

export interface OpenHomeOptions {
  /** `init`: create the home, database and key when absent. */
  create: boolean;
  /**
   * `signer`: the keyring must hold this home's keys (start, init, run, proxies: anything that writes).
   * `verify`: open even without the keyring, for reading; appending and verifying then fail
   * closed with a message that says how to unlock it.
   */
  keys: 'signer' | 'verify';
  secretStore: SecretStore;
  now?: () => Date;
  /** Long-lived writers (runtime, proxies) checkpoint this long after an append even when idle. */
  idleCheckpointMs?: number;
  onCheckpointError?: (error: unknown) => void;
}

/**
 * Opens a data home: its database (with migrations), owner key, ledger key, audit log and
 * seals, as one `Ledger`. Shared by the runtime, the proxies and every CLI command (through
 * `CliContext`, app/cli-context.ts) so they agree on what "this home" means.
 */
export function openHome(home: string, options: OpenHomeOptions): Ledger {
  const paths = homePaths(home);
  prepareHome(paths, options.create);
  const dbExisted = databaseExists(paths.database);
  const vault = new OwnerKeyVault(options.secretStore, ownerAccountForHome(home));
  const now = options.now ?? (() => new Date());

  // The keyring is probed before the database is created, so a machine without a keyring is
  // told so without being left with a half-initialised home.
  let signer: OwnerSigner | null = null;
  let keyringProblem = `holds no owner key for this home (${options.secretStore.description}, account ${vault.account})`;
  let keyCreated = false;
  if (options.keys === 'signer') {
    signer = vault.load();
    if (!signer && !options.create) vault.loadOrFail();
  } else {
    try {
      signer = vault.load();
    } catch (error) {
      keyringProblem = `is not reachable (${(error as Error).message})`;
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

    const repository = new AuditRepository(db);
    let keys: LedgerKeys | null = null;
    let sealed: { entries: number; hash: string } | null = null;
    if (signer) {
      const owner = signer;
      const loaded = repository.underWriteLock(() => loadOrCreateLedgerKey(repository, new LedgerKeyVault(options.secretStore, home), owner, now));
      keys = { chain: loaded.secret.chain, keyedFrom: loaded.secret.keyedFrom, anchors: loaded.secret.anchors, signer: owner };
      sealed = loaded.sealed;
    }
    const audit = new SqliteAuditLog({
      repository,
      keys,
      keysUnavailable: keyringProblem,
      now,
      idleCheckpointMs: keys ? options.idleCheckpointMs : undefined,
      onCheckpointError: options.onCheckpointError,
    });
    if (sealed) {
      audit.sealLegacy(sealed.entries, sealed.hash);
      audit.writeCheckpoint();
    }

    // One home, one owner key: any other key in the table was put there by someone else.
    const foreign = registered.filter((k) => k.fingerprint !== signer?.fingerprint).map((k) => k.fingerprint);
    if ((signer && foreign.length > 0) || (!signer && registered.length > 1)) {
      const reason = `the owner_keys table lists ${signer ? `key(s) other than the owner key in the OS keyring (${signer.fingerprint}): ${foreign.join(', ')}` : `${registered.length} keys for one home`}; they are never trusted`;
      if (keys) audit.append('audit.tamper_detected', { table: 'owner_keys', foreign_fingerprints: foreign, reason });
      throw new SilasError(ErrorCode.LedgerTampered, `the database of ${home} was altered outside Silas: ${reason}. Nothing was run; remove those rows only after finding out who added them (see docs/ledger.md)`);
    }

    const trusted = trustedKeys(signer);
    const seals = new StateSeals({
      keys: { ledger: () => keys?.chain ?? null, owner: () => signer },
      anchors: { store: options.secretStore, absoluteHome: home },
      reporter: {
        refused: (refusal) => {
          // A refusal is evidence; without the keys nothing can be appended, and the caller still fails closed.
          if (!keys) return;
          try {
            audit.append('state.seal_refused', { kind: refusal.kind, id: refusal.id, authority: refusal.authority, reason: refusal.reason, detail: refusal.detail });
          } catch (error) {
            options.onCheckpointError?.(error);
          }
        },
      },
    });
    // A new home has no policies from before anchors: nothing is ever trusted at first sight.
    if (!dbExisted && keys) closeUpgradeWindow(seals);
    return {
      paths,
      db,
      audit,
      signer,
      trustedKeys: () => trusted,
      seals,
      ownerFingerprint: signer?.fingerprint ?? registered[0]?.fingerprint ?? 'unknown',
      committed: (ids) => ids.filter((id) => repository.hasEntry(id)),
      created: { database: !dbExisted, key: keyCreated },
      close: () => {
        try {
          audit.close();
        } finally {
          closeDatabase(db);
        }
      },
    };
  } catch (error) {
    closeDatabase(db);
    throw error;
  }
}

/**
 * Under the write lock, so two processes opening a legacy home at once mint one key, not two.
 * A home whose database says it is keyed never gets a fresh key: that would let a new key
 * vouch for entries the old one no longer protects.
 */
function loadOrCreateLedgerKey(repo: AuditRepository, vault: LedgerKeyVault, signer: OwnerSigner, now: () => Date): { secret: LedgerSecret; sealed: { entries: number; hash: string } | null } {
  const state = repo.chainState();
  const mirror = (secret: LedgerSecret) => repo.recordChainState(secret.chain.keyId, secret.keyedFrom, now().toISOString());
  const existing = vault.load();
  if (existing) {
    if (state && state.keyId !== existing.chain.keyId) {
      throw new SilasError(ErrorCode.KeyMissing, `the ledger key in the OS keyring (${vault.description}, id ${existing.chain.keyId}) is not the one this home's chain is keyed with (id ${state.keyId}); unlock the keyring that holds it, or use another --home`);
    }
    if (!state) mirror(existing);
    return { secret: existing, sealed: null };
  }
  if (state) {
    throw new SilasError(
      ErrorCode.KeyMissing,
      `this home's audit chain is keyed (since entry ${state.keyedFrom}) by ledger key ${state.keyId}, which is not in the OS keyring (${vault.description}); unlock or restore the keyring that holds it — a new key would leave every keyed entry unverifiable`,
    );
  }
  const head = repo.head();
  if (head) {
    const problem = verifyLegacyChain(repo, signer);
    if (problem) throw new LedgerTamperError(problem.index, `the existing (unkeyed) chain cannot be sealed under a ledger key: ${problem.reason}`);
  }
  const secret = vault.create(head ? head.index + 1 : 0);
  mirror(secret);
  return { secret, sealed: head ? { entries: head.index + 1, hash: head.hash } : null };
}

function databaseExists(file: string): boolean {
  try {
    return statSync(file).size > 0;
  } catch {
    return false;
  }
}

/** How often long-lived writers checkpoint when idle. */
export const IDLE_CHECKPOINT_MS = CHECKPOINT_MAX_AGE_MS;

/**
 * First use of a home is itself an audited decision: record which key now owns it (the ledger
 * checkpoints the first keyed entries at once). Returns whether anything was new.
 */
export function recordInitialisation(ledger: Ledger): boolean {
  if (!ledger.created.database && !ledger.created.key) return false;
  ledger.audit.append('runtime.initialised', { owner_fingerprint: ledger.ownerFingerprint, key_created: ledger.created.key });
  ledger.audit.writeCheckpoint();
  return true;
}
