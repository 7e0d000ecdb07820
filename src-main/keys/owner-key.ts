import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { generateEd25519, keyFingerprint, privateKeyFromPkcs8, rawPublicKey, signEd25519, verifyEd25519 } from './ed25519.js';
import type { SecretStore } from './secret-store.js';

/** What the rest of the runtime may hold: the ability to sign, never the key bytes. */
export interface OwnerSigner {
  readonly fingerprint: string;
  readonly publicKey: Buffer;
  sign(message: Uint8Array): Buffer;
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}

/**
 * The keys a signature may be checked against: the owner key held in the OS keyring, and
 * nothing else. Keys read from the database never enter this map (DESIGN invariant 9); with
 * no keyring key it is empty, so every signature check fails closed.
 */
export function trustedKeys(owner: Pick<OwnerSigner, 'fingerprint' | 'publicKey'> | null | undefined): ReadonlyMap<string, Uint8Array> {
  return owner ? new Map([[owner.fingerprint, owner.publicKey as Uint8Array]]) : new Map();
}

interface StoredKey {
  v: 1;
  alg: 'ed25519';
  pkcs8: string;
}

/**
 * Keyring account of a data home: derived from its absolute path, so a test home never reads
 * or overwrites the key of a person's real home.
 */
export function ownerAccountForHome(absoluteHome: string): string {
  return `owner-${createHash('sha256').update(absoluteHome, 'utf8').digest('hex').slice(0, 24)}`;
}

class KeyringOwnerSigner implements OwnerSigner {
  readonly fingerprint: string;
  readonly publicKey: Buffer;
  readonly #privateKey: KeyObject;

  constructor(privateKey: KeyObject, publicKey: KeyObject) {
    this.#privateKey = privateKey;
    this.publicKey = rawPublicKey(publicKey);
    this.fingerprint = keyFingerprint(this.publicKey);
  }

  sign(message: Uint8Array): Buffer {
    return signEd25519(this.#privateKey, message);
  }

  verify(message: Uint8Array, signature: Uint8Array): boolean {
    return verifyEd25519(this.publicKey, message, signature);
  }

  /** Logging or serialising a signer shows only public facts. */
  toJSON(): { fingerprint: string; publicKey: string } {
    return { fingerprint: this.fingerprint, publicKey: this.publicKey.toString('hex') };
  }
}

/** The owner's Ed25519 key. Its private half exists only in the OS keyring and in this process's memory. */
export class OwnerKeyVault {
  constructor(
    private readonly store: SecretStore,
    readonly account: string,
  ) {}

  load(): OwnerSigner | null {
    const stored = this.store.get(this.account);
    if (stored === null) return null;
    return this.decode(stored);
  }

  loadOrFail(): OwnerSigner {
    const signer = this.load();
    if (!signer) {
      throw new SilasError(
        ErrorCode.KeyMissing,
        `the owner key for this home is not in the OS keyring (${this.store.description}, account ${this.account}); run \`silas init\` on this machine, or unlock the keyring that holds it`,
      );
    }
    return signer;
  }

  /** Creates the key when absent. Returns whether it was created now. */
  ensure(): { signer: OwnerSigner; created: boolean } {
    const existing = this.load();
    if (existing) return { signer: existing, created: false };
    const { privateKey, publicKey } = generateEd25519();
    const record: StoredKey = { v: 1, alg: 'ed25519', pkcs8: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64') };
    this.store.set(this.account, JSON.stringify(record));
    const reread = this.load();
    if (!reread || reread.fingerprint !== keyFingerprint(rawPublicKey(publicKey))) {
      throw new SilasError(ErrorCode.Keyring, `the OS keyring (${this.store.description}) did not keep the owner key; check that it is unlocked and writable`);
    }
    return { signer: reread, created: true };
  }

  private decode(stored: string): OwnerSigner {
    try {
      const record = JSON.parse(stored) as StoredKey;
      if (record.v !== 1 || record.alg !== 'ed25519' || typeof record.pkcs8 !== 'string') throw new Error('unknown key record format');
      const privateKey = privateKeyFromPkcs8(Buffer.from(record.pkcs8, 'base64'));
      return new KeyringOwnerSigner(privateKey, createPublicKey(privateKey));
    } catch (error) {
      throw new SilasError(ErrorCode.Keyring, `the keyring entry ${this.account} does not hold a valid Silas owner key (${(error as Error).message}); remove it and run \`silas init\` again`, { cause: error });
    }
  }
}
