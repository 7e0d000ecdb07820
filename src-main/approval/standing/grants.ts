import { createHash } from 'node:crypto';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { OwnerKeyVault, ownerAccountForHome } from '../../keys/owner-key.js';
import type { SecretStore } from '../../keys/secret-store.js';

/** The owner key as the keyring holds it: the only key a standing approval may be signed with. */
export interface OwnerPublicKey {
  fingerprint: string;
  publicKey: Uint8Array;
}

/** What the keyring says about standing approvals right now. */
export interface StandingGrantsView {
  owner: OwnerPublicKey;
  /** Ids of the standing approvals the owner granted and has not revoked. */
  active: ReadonlySet<string>;
}

/**
 * The authority over which standing approvals are in force. It lives where only the keyring
 * holder can write (DESIGN invariant 1): the database row carries the signed binding, but
 * whether the grant still stands is this record's word, so clearing `revoked_at`, deleting
 * rows or restoring them from a backup cannot bring a revoked approval back.
 */
export interface StandingGrants {
  readonly description: string;
  /** Throws when the record cannot be read; the caller must then honour no standing approval. */
  read(): StandingGrantsView;
  add(id: string): void;
  /** False when `id` was not in force. */
  remove(id: string): boolean;
}

function noRecord(): never {
  throw new SilasError(ErrorCode.Keyring, 'this process was started without access to the keyring record of standing approvals');
}

/** For a process given no keyring record: every lookup is refused, saying why. */
export const NO_STANDING_GRANTS: StandingGrants = { description: 'no keyring record was given to this process', read: noRecord, add: noRecord, remove: noRecord };

interface StoredGrants {
  v: 1;
  active: string[];
}

/** Keyring account of a home's standing-approval record, derived from its path like the owner key's. */
export function standingAccountForHome(absoluteHome: string): string {
  return `standing-approvals-${createHash('sha256').update(absoluteHome, 'utf8').digest('hex').slice(0, 24)}`;
}

/**
 * The record as one OS-keyring entry holding the ids in force. Revoking removes the id, so the
 * entry stays as small as the set of live approvals. Only the runtime writes it, inside the
 * database transaction that records the change, which serialises writers on one home.
 */
export class KeyringStandingGrants implements StandingGrants {
  readonly description: string;
  private readonly account: string;
  private readonly ownerVault: OwnerKeyVault;
  private owner: OwnerPublicKey | null = null;

  constructor(
    private readonly store: SecretStore,
    absoluteHome: string,
  ) {
    this.account = standingAccountForHome(absoluteHome);
    this.ownerVault = new OwnerKeyVault(store, ownerAccountForHome(absoluteHome));
    this.description = `${store.description} entry ${this.account}`;
  }

  read(): StandingGrantsView {
    return { owner: this.ownerKey(), active: new Set(this.load()) };
  }

  add(id: string): void {
    const active = this.load();
    if (!active.includes(id)) this.save([...active, id]);
  }

  remove(id: string): boolean {
    const active = this.load();
    if (!active.includes(id)) return false;
    this.save(active.filter((other) => other !== id));
    return true;
  }

  /** The owner key never changes for a home, so it is read once; the grants are read every time. */
  private ownerKey(): OwnerPublicKey {
    if (!this.owner) {
      const signer = this.ownerVault.loadOrFail();
      this.owner = { fingerprint: signer.fingerprint, publicKey: signer.publicKey };
    }
    return this.owner;
  }

  private load(): string[] {
    const stored = this.store.get(this.account);
    if (stored === null) return [];
    try {
      const record = JSON.parse(stored) as StoredGrants;
      if (record.v !== 1 || !Array.isArray(record.active) || !record.active.every((id) => typeof id === 'string')) throw new Error('unknown record format');
      return record.active;
    } catch (error) {
      throw new SilasError(
        ErrorCode.Keyring,
        `the keyring entry ${this.account} does not hold a valid standing-approval record (${(error as Error).message}); no standing approval is honoured until it is removed, which revokes them all`,
        { cause: error },
      );
    }
  }

  private save(active: string[]): void {
    const record: StoredGrants = { v: 1, active };
    this.store.set(this.account, JSON.stringify(record));
  }
}
