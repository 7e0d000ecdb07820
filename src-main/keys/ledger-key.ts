import { createHash, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { SecretStore } from './secret-store.js';

/**
 * The secret that keys the audit chain: entry hash = HMAC-SHA256(key, prev_hash ‖ canonical
 * entry). Whoever can write the database but not read the keyring cannot produce a hash that
 * verifies, so no rewrite of the chain can be made consistent again.
 */
export interface ChainKey {
  /** Names the key without revealing it: the first 64 bits of HMAC(key, a fixed label). */
  readonly keyId: string;
  mac(prevHash: string, canonicalEntry: string): string;
}

/** The latest checkpoint a writer signed, held where the database cannot roll it back. */
export interface CheckpointAnchor {
  index: number;
  hash: string;
  checkpointId: string;
}

/** Reads and advances the keyring-held anchor. Writers call `write` only while holding the ledger's write lock. */
export interface AnchorStore {
  read(): CheckpointAnchor | null;
  write(anchor: CheckpointAnchor): void;
}

export interface LedgerSecret {
  chain: ChainKey;
  /** Entries below this index predate the keyed chain (plain sha256, sealed by the first keyed entry). */
  keyedFrom: number;
  anchors: AnchorStore;
}

interface StoredLedgerKey {
  v: 1;
  alg: 'hmac-sha256';
  key: string;
  keyed_from: number;
}

class HmacChainKey implements ChainKey {
  readonly keyId: string;
  readonly #key: KeyObject;

  constructor(raw: Buffer) {
    this.#key = createSecretKey(raw);
    this.keyId = createHmac('sha256', this.#key).update('silas.ledger.key-id/v1', 'utf8').digest('hex').slice(0, 16);
  }

  mac(prevHash: string, canonicalEntry: string): string {
    return createHmac('sha256', this.#key).update(prevHash, 'utf8').update(canonicalEntry, 'utf8').digest('hex');
  }

  /** Logging or serialising the key shows only its id. */
  toJSON(): { keyId: string } {
    return { keyId: this.keyId };
  }
}

function accountSuffix(absoluteHome: string): string {
  return createHash('sha256').update(absoluteHome, 'utf8').digest('hex').slice(0, 24);
}

/** Keyring accounts of a home's ledger key and checkpoint anchor, derived from its path like the owner key's. */
export function ledgerAccountsForHome(absoluteHome: string): { key: string; anchor: string } {
  const suffix = accountSuffix(absoluteHome);
  return { key: `ledger-key-${suffix}`, anchor: `ledger-anchor-${suffix}` };
}

export class KeyringAnchorStore implements AnchorStore {
  constructor(
    private readonly store: SecretStore,
    private readonly account: string,
  ) {}

  read(): CheckpointAnchor | null {
    const stored = this.store.get(this.account);
    if (stored === null) return null;
    try {
      const record = JSON.parse(stored) as { v: number; index: number; hash: string; checkpoint_id: string };
      if (record.v !== 1 || !Number.isInteger(record.index) || !/^[0-9a-f]{64}$/.test(record.hash) || typeof record.checkpoint_id !== 'string') throw new Error('unknown anchor format');
      return { index: record.index, hash: record.hash, checkpointId: record.checkpoint_id };
    } catch (error) {
      throw new SilasError(ErrorCode.Keyring, `the keyring entry ${this.account} does not hold a valid ledger anchor (${(error as Error).message}); restore the keyring from a backup`, { cause: error });
    }
  }

  write(anchor: CheckpointAnchor): void {
    this.store.set(this.account, JSON.stringify({ v: 1, index: anchor.index, hash: anchor.hash, checkpoint_id: anchor.checkpointId }));
  }
}

/** The key and where keyed entries start, from the keyring record's text; `account` names it in errors. */
export function parseLedgerKeyRecord(stored: string, account: string): { chain: HmacChainKey; keyedFrom: number } {
  let record: StoredLedgerKey;
  try {
    record = JSON.parse(stored) as StoredLedgerKey;
    if (record.v !== 1 || record.alg !== 'hmac-sha256' || typeof record.key !== 'string' || !Number.isInteger(record.keyed_from) || record.keyed_from < 0) {
      throw new Error('unknown ledger key format');
    }
  } catch (error) {
    throw new SilasError(ErrorCode.Keyring, `the keyring entry ${account} does not hold a valid Silas ledger key (${(error as Error).message}); restore it from a keyring backup`, { cause: error });
  }
  const raw = Buffer.from(record.key, 'base64');
  if (raw.length !== 32) throw new SilasError(ErrorCode.Keyring, `the ledger key in ${account} has ${raw.length} bytes, not 32; restore it from a keyring backup`);
  return { chain: new HmacChainKey(raw), keyedFrom: record.keyed_from };
}

/** The ledger key of one data home in the OS keyring. */
export class LedgerKeyVault {
  readonly accounts: { key: string; anchor: string };

  constructor(
    private readonly store: SecretStore,
    absoluteHome: string,
  ) {
    this.accounts = ledgerAccountsForHome(absoluteHome);
  }

  get description(): string {
    return `${this.store.description}, account ${this.accounts.key}`;
  }

  load(): LedgerSecret | null {
    const stored = this.store.get(this.accounts.key);
    if (stored === null) return null;
    const { chain, keyedFrom } = parseLedgerKeyRecord(stored, this.accounts.key);
    return { chain, keyedFrom, anchors: new KeyringAnchorStore(this.store, this.accounts.anchor) };
  }

  /** The raw keyring record, for a verifier thread that parses it with `parseLedgerKeyRecord` (one read serves both). */
  loadRecord(): string | null {
    return this.store.get(this.accounts.key);
  }

  /** Creates a fresh 32-byte key; entries from `keyedFrom` on are keyed by it. Refuses to replace an existing key. */
  create(keyedFrom: number): LedgerSecret {
    if (this.store.get(this.accounts.key) !== null) {
      throw new SilasError(ErrorCode.Keyring, `a ledger key already exists in ${this.description}; a second one would orphan every keyed entry`);
    }
    const record: StoredLedgerKey = { v: 1, alg: 'hmac-sha256', key: randomBytes(32).toString('base64'), keyed_from: keyedFrom };
    this.store.set(this.accounts.key, JSON.stringify(record));
    const reread = this.load();
    if (!reread) throw new SilasError(ErrorCode.Keyring, `the OS keyring (${this.store.description}) did not keep the ledger key; check that it is unlocked and writable`);
    return reread;
  }
}
