import { readFileSync } from 'node:fs';
import { isSilasError } from '../../src-shared/errors.js';
import { judgePolicyText } from '../aip/policy/in-force.js';
import { keyFingerprint } from '../keys/ed25519.js';
import { MAX_SECRET_BYTES, NamedSecrets, originsOf, secretNameProblem } from '../keys/named-secrets.js';
import { OwnerKeyVault, ownerAccountForHome, trustedKeys, type OwnerSigner } from '../keys/owner-key.js';
import { OsKeyring, type SecretStore } from '../keys/secret-store.js';
import { StateSeals } from '../keys/sealed-state.js';
import type { CliDatabase } from './cli-database.js';
import type { CliSigners } from './cli-signers.js';

// What a CLI command may reach of the home and the keyring, composed here so that cli/commands/*
// construct no infrastructure and import neither store/ nor keys/ (docs/architecture.md §3).
// This module loads the keyring and nothing else: the database side (`database()`) and the
// signers are imported on first use, so `silas policy` never loads SQLite and `silas proxy`,
// which every MCP client starts, pays only for what it uses (docs/architecture.md §6).

export type { CliDatabase, Ledger, ModelsLedger } from './cli-database.js';
export type { CliSigners, MessageSigner } from './cli-signers.js';
export type { SecretStore };

/** The owner key and the keyring's policy anchors of a home, or null when the keyring holds no key for it. */
interface PolicyKeys {
  signer: OwnerSigner;
  seals: StateSeals;
}

export type SecretStatus = { state: 'stored' } | { state: 'missing' } | { state: 'unreadable'; reason: string };

/** The rules a secret's name, size and origins follow, for checking input before the keyring is touched. */
interface SecretRules {
  maxBytes: number;
  /** Why `name` is not a valid secret name, or null. */
  nameProblem(name: string): string | null;
  /** The origins of `urls`; throws, naming the URL, when one is not http(s). */
  originsOf(urls: readonly string[]): string[];
}

/** One command's access to a data home and the OS keyring (or the store a test injected). */
export interface CliContext {
  readonly home: string;
  /** The OS keyring, unless a test injected its own store through `CliIo.secretStore`. */
  readonly secretStore: SecretStore;
  /** The home's owner key from the keyring, for signing; throws a KeyMissing/Keyring error that says how to unlock it. */
  ownerSigner(): { signer: OwnerSigner; trusted: ReadonlyMap<string, Uint8Array> };
  /**
   * The keys a policy signature is checked against: each raw Ed25519 public key the person named,
   * then, when `withOwnerKey`, the home's owner key as the keyring holds it (never a key read from
   * the database: DESIGN invariant 9). A keyring that cannot be read is reported, not thrown, so
   * the named keys still count.
   */
  policyVerificationKeys(publicKeys: readonly Uint8Array[], withOwnerKey: boolean): { keys: Map<string, Uint8Array>; ownerKeyError: unknown };
  /**
   * The keyring's anchors of the home's policies in force, for `silas policy sign` (which puts the
   * signed text in force for its path: docs/mcp-proxy.md "Signed policies"). Anchors only: no
   * database is opened, so nothing here writes the ledger.
   */
  policyAnchors(signer: OwnerSigner): StateSeals;
  /** The owner key and anchors for `silas clients wrap`, which names the wrapped policies not yet in force. */
  policyKeys(): PolicyKeys | null;
  /** Whether the file at `path` is the owner's policy in force for it (what a proxy would enforce). */
  policyFileInForce(path: string, keys: PolicyKeys | null): boolean;
  /** Server secrets in the keyring (they belong to the keyring, not to the home). */
  secrets(): NamedSecrets;
  secretRules: SecretRules;
  /** Whether the keyring holds secret `name`. The value is read (a keyring cannot be asked less) and dropped here. */
  secretStatus(name: string): SecretStatus;
  /** The origins secret `name` may be sent to, or null when the keyring could not be read. */
  secretOrigins(name: string): string[] | null;
  /** Signatures made with the owner key for the running runtime (`silas open`, `silas chat`). */
  signers(): Promise<CliSigners>;
  /** The home's database and ledger: loads SQLite, so only commands that need it call this. */
  database(): Promise<CliDatabase>;
}

/** How a command gets its context once it knows the home (`--home`, SILAS_HOME or the default). */
export type OpenForCommand = (home: string) => Promise<CliContext>;

/** `open` for a command run in-process (tests): the CLI's entry imports this module lazily instead. */
export function commandOpener(io: { secretStore?: SecretStore }): OpenForCommand {
  return (home) => Promise.resolve(openForCommand(home, io));
}

export function openForCommand(home: string, io: { secretStore?: SecretStore }): CliContext {
  const store = io.secretStore ?? new OsKeyring();
  const vault = () => new OwnerKeyVault(store, ownerAccountForHome(home));
  const ownerSigner = () => {
    const signer = vault().loadOrFail();
    return { signer, trusted: trustedKeys(signer) };
  };
  const policyAnchors = (signer: OwnerSigner) => new StateSeals({ keys: { ledger: () => null, owner: () => signer }, anchors: { store, absoluteHome: home } });
  const secrets = () => new NamedSecrets(store);
  const context: CliContext = {
    home,
    secretStore: store,
    ownerSigner,
    policyVerificationKeys(publicKeys, withOwnerKey) {
      const keys = new Map<string, Uint8Array>();
      for (const raw of publicKeys) keys.set(keyFingerprint(raw), raw);
      if (!withOwnerKey) return { keys, ownerKeyError: null };
      try {
        for (const [fingerprint, publicKey] of trustedKeys(vault().load())) keys.set(fingerprint, publicKey);
      } catch (error) {
        return { keys, ownerKeyError: error };
      }
      return { keys, ownerKeyError: null };
    },
    policyAnchors,
    policyKeys() {
      try {
        const { signer } = ownerSigner();
        return { signer, seals: policyAnchors(signer) };
      } catch {
        return null;
      }
    },
    policyFileInForce(path, keys) {
      if (keys === null) return false;
      try {
        return judgePolicyText(readFileSync(path, 'utf8'), { path, trustedKeys: trustedKeys(keys.signer), seals: keys.seals }).ok;
      } catch {
        return false;
      }
    },
    secrets,
    secretRules: { maxBytes: MAX_SECRET_BYTES, nameProblem: secretNameProblem, originsOf },
    secretStatus(name) {
      try {
        const value = secrets().get(name);
        return value === null || value === '' ? { state: 'missing' } : { state: 'stored' };
      } catch (error) {
        return { state: 'unreadable', reason: isSilasError(error) ? error.message : 'the OS keyring failed' };
      }
    },
    secretOrigins(name) {
      try {
        return secrets().boundOrigins(name);
      } catch {
        return null;
      }
    },
    signers: async () => (await import('./cli-signers.js')).cliSigners(home, ownerSigner),
    database: async () => (await import('./cli-database.js')).cliDatabase(home, store),
  };
  return context;
}
