import { createHash } from 'node:crypto';
import { sealDigest, type StateSeals } from '../../keys/sealed-state.js';
import { loadPolicyText, POLICY_SIGNATURE_INVALID, type PolicyError } from './load.js';
import type { AgentPolicy } from './types.js';

/*
 * Which policy text a proxy may enforce (docs/mcp-proxy.md "Signed policies"; DESIGN invariant 13):
 * only one signed with the owner key from the keyring, and only the one Silas last put in force
 * for that path. Signing alone cannot tell an older signed policy put back from the current one,
 * so every place Silas writes a policy in force (the cockpit's save, restore, adopt and create;
 * `silas policy sign`) anchors the text's digest in the keyring under the policy's absolute path
 * (kind 'policy-in-force' of keys/sealed-state.ts). A process that can write the file but not
 * the keyring can therefore neither make nor roll back what is enforced.
 *
 * A path nothing was ever anchored for is not trusted either: fail closed, and the person adopts
 * the file once in the cockpit or signs it with `silas policy sign`. One exception keeps an
 * upgrade from stopping every governed server: in a home from before policies were anchored, a
 * file that already carries the owner's signature is put in force the first time it is read,
 * until the runtime's first start has done so for every policy it knows and closed that window
 * (`closeUpgradeWindow`, recorded in the keyring). A new home closes it at once. What the window
 * trusts is exactly what the release before trusted; after it, nothing is trusted at first sight.
 */

const POLICY_IN_FORCE = 'policy-in-force' as const;

export type PolicyRefusalReason = 'unsigned' | 'signature_invalid' | 'not_in_force';

export type PolicyTrust =
  | { ok: true; policy: AgentPolicy; warnings: string[]; signedBy: string | null }
  /** The text does not load at all (schema, YAML, size): reported as errors, as before. */
  | { ok: false; invalid: true; errors: PolicyError[] }
  /** The text loads, but it is not the owner's policy in force: refused, and the last one in force stays. */
  | { ok: false; invalid: false; reason: PolicyRefusalReason; detail: string };

export interface PolicyTrustOptions {
  /** The absolute path of the policy file: the anchor's id, and the policy's sourcePath. */
  path: string;
  trustedKeys: ReadonlyMap<string, Uint8Array>;
  seals: Pick<StateSeals, 'checkAnchored' | 'anchoredDigest' | 'anchor'>;
  /** `--allow-unsigned`: a recorded development choice; any valid text is enforced. */
  allowUnsigned?: boolean;
}

export const textSha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The value anchored for a policy in force: the digest of its exact text. */
function inForceValue(text: string): { sha256: string } {
  return { sha256: textSha256(text) };
}

/** Puts `text` in force for `path` (a keyring write: only when Silas writes the policy). */
export function anchorPolicyInForce(seals: Pick<StateSeals, 'anchor'>, path: string, text: string): void {
  seals.anchor(POLICY_IN_FORCE, path, inForceValue(text));
}

/**
 * Reads the keyring's anchor for `path` once (a keyring read costs milliseconds) and returns a
 * test of whether a text, by its SHA-256, is the one in force. An unreadable keyring matches nothing.
 */
export function inForceMatcher(seals: Pick<StateSeals, 'anchoredDigest'>, path: string): (sha256: string) => boolean {
  let anchored: string | null;
  try {
    anchored = seals.anchoredDigest(POLICY_IN_FORCE, path);
  } catch {
    anchored = null;
  }
  return (sha256) => anchored !== null && anchored === sealDigest(POLICY_IN_FORCE, path, { sha256 });
}

/** What to tell the person about a refused policy file: why, and the two ways to put it in force. */
function refusalAdvice(path: string, reason: PolicyRefusalReason): string {
  const why =
    reason === 'unsigned'
      ? `${path} is not signed by the owner key`
      : reason === 'signature_invalid'
        ? `${path} carries a signature that does not verify with the owner key (changed after it was signed?)`
        : `${path} is signed, but it is not the policy Silas last put in force for this path (an older copy put back, or signed before signatures were required)`;
  return `${why}; adopt it in the cockpit (Policies → Adopt) or run \`silas policy sign ${path}\` to put it in force`;
}

/**
 * Judges a policy file's text: enforceable (owner-signed and anchored, or any valid text under
 * `--allow-unsigned`), invalid, or refused with the reason. A refusal of the anchor is reported to
 * the ledger by the seals (`state.seal_refused`), once per distinct text.
 */
export function judgePolicyText(text: string, options: PolicyTrustOptions): PolicyTrust {
  const loaded = loadPolicyText(text, { sourcePath: options.path, trustedKeys: options.trustedKeys });
  if (!loaded.ok) {
    const signatureOnly = loaded.errors.length > 0 && loaded.errors.every((error) => error.code === POLICY_SIGNATURE_INVALID);
    if (signatureOnly && !options.allowUnsigned) return { ok: false, invalid: false, reason: 'signature_invalid', detail: refusalAdvice(options.path, 'signature_invalid') };
    return { ok: false, invalid: true, errors: loaded.errors };
  }
  const accepted = { ok: true as const, policy: loaded.policy, warnings: loaded.warnings, signedBy: loaded.signedBy };
  if (options.allowUnsigned) return accepted;
  if (loaded.signedBy === null) return { ok: false, invalid: false, reason: 'unsigned', detail: refusalAdvice(options.path, 'unsigned') };
  if (adoptedFromBeforeAnchors(options.seals, options.path, text)) return accepted;
  if (!options.seals.checkAnchored(POLICY_IN_FORCE, options.path, inForceValue(text)).ok) return { ok: false, invalid: false, reason: 'not_in_force', detail: refusalAdvice(options.path, 'not_in_force') };
  return accepted;
}

// The keyring record that the upgrade window is closed (an item of its own under the same kind).
const UPGRADE_WINDOW = 'window: policies signed before anchors';

/**
 * In a home whose upgrade window is open, an owner-signed text at a path nothing was anchored for
 * is put in force now (the caller has checked the signature). False once the window is closed.
 */
function adoptedFromBeforeAnchors(seals: Pick<StateSeals, 'anchoredDigest' | 'anchor'>, path: string, text: string): boolean {
  try {
    if (seals.anchoredDigest(POLICY_IN_FORCE, UPGRADE_WINDOW) !== null) return false;
    if (seals.anchoredDigest(POLICY_IN_FORCE, path) !== null) return false;
    anchorPolicyInForce(seals, path, text);
    return true;
  } catch {
    return false;
  }
}

/** Whether the home's upgrade window is still open (a home from before policies were anchored, before its runtime's first start). */
export function upgradeWindowOpen(seals: Pick<StateSeals, 'anchoredDigest'>): boolean {
  return seals.anchoredDigest(POLICY_IN_FORCE, UPGRADE_WINDOW) === null;
}

/**
 * Closes the upgrade window: the runtime's first start, once it has judged every policy it knows
 * (which puts the owner-signed ones in force), and a new home at once.
 */
export function closeUpgradeWindow(seals: Pick<StateSeals, 'anchor'>): void {
  seals.anchor(POLICY_IN_FORCE, UPGRADE_WINDOW, { closed: true });
}
