import { readFileSync } from 'node:fs';
import { judgePolicyText } from '../aip/policy/in-force.js';
import { keyFingerprint } from '../keys/ed25519.js';
import { OwnerKeyVault, ownerAccountForHome, trustedKeys, type OwnerSigner } from '../keys/owner-key.js';
import { OsKeyring, type SecretStore } from '../keys/secret-store.js';
import { StateSeals } from '../keys/sealed-state.js';

// The keyring-backed pieces CLI commands need, composed here so that cli/commands/* never
// construct keyring infrastructure themselves (docs/architecture.md §3). Nothing here opens the
// database: `silas policy` must not load SQLite.

export type { SecretStore };

/** The OS keyring, unless a test injected its own store through `CliIo.secretStore`. */
export function cliSecretStore(injected: SecretStore | undefined): SecretStore {
  return injected ?? new OsKeyring();
}

/** The home's owner key from the keyring, for signing; throws a KeyMissing/Keyring error that says how to unlock it. */
export function ownerSignerForHome(home: string, secretStore: SecretStore | undefined): { signer: OwnerSigner; trusted: ReadonlyMap<string, Uint8Array> } {
  const signer = new OwnerKeyVault(cliSecretStore(secretStore), ownerAccountForHome(home)).loadOrFail();
  return { signer, trusted: trustedKeys(signer) };
}

/**
 * The keys a policy signature is checked against: each raw Ed25519 public key the person named,
 * then, when `home` is given, the home's owner key as the keyring holds it (never a key read from
 * the database: DESIGN invariant 9). A keyring that cannot be read is reported, not thrown, so
 * the named keys still count.
 */
export function policyVerificationKeys(publicKeys: readonly Uint8Array[], home: string | null, secretStore: SecretStore | undefined): { keys: Map<string, Uint8Array>; ownerKeyError: unknown } {
  const keys = new Map<string, Uint8Array>();
  for (const raw of publicKeys) keys.set(keyFingerprint(raw), raw);
  if (home === null) return { keys, ownerKeyError: null };
  try {
    for (const [fingerprint, publicKey] of trustedKeys(new OwnerKeyVault(cliSecretStore(secretStore), ownerAccountForHome(home)).load())) keys.set(fingerprint, publicKey);
  } catch (error) {
    return { keys, ownerKeyError: error };
  }
  return { keys, ownerKeyError: null };
}

/**
 * The keyring's anchors of the home's policies in force, for `silas policy sign` (which puts the
 * signed text in force for its path: docs/mcp-proxy.md "Signed policies"). Anchors only: no
 * database is opened, so nothing here writes the ledger.
 */
export function policyAnchorsForHome(home: string, secretStore: SecretStore | undefined, signer: OwnerSigner): StateSeals {
  return new StateSeals({ keys: { ledger: () => null, owner: () => signer }, anchors: { store: cliSecretStore(secretStore), absoluteHome: home } });
}

/** The owner key and the keyring's policy anchors of a home, or null when the keyring holds no key for it. */
export interface PolicyKeys {
  signer: OwnerSigner;
  seals: StateSeals;
}

/** The owner key and anchors for `silas clients wrap`, which names the wrapped policies not yet in force. */
export function policyKeysForHome(home: string, secretStore: SecretStore | undefined): PolicyKeys | null {
  try {
    const { signer } = ownerSignerForHome(home, secretStore);
    return { signer, seals: policyAnchorsForHome(home, secretStore, signer) };
  } catch {
    return null;
  }
}

/** Whether the file at `path` is the owner's policy in force for it (what a proxy would enforce). */
export function policyFileInForce(path: string, keys: PolicyKeys | null): boolean {
  if (keys === null) return false;
  try {
    return judgePolicyText(readFileSync(path, 'utf8'), { path, trustedKeys: trustedKeys(keys.signer), seals: keys.seals }).ok;
  } catch {
    return false;
  }
}
