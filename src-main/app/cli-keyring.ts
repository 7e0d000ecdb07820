import { keyFingerprint } from '../keys/ed25519.js';
import { OwnerKeyVault, ownerAccountForHome, trustedKeys, type OwnerSigner } from '../keys/owner-key.js';
import { OsKeyring, type SecretStore } from '../keys/secret-store.js';

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
