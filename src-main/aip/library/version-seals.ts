import { createHash } from 'node:crypto';
import type { SealRefusal, StateSeals } from '../../keys/sealed-state.js';
import type { PolicyVersionRow } from '../../store/repositories/policy-versions.js';
import { loadPolicyText } from '../policy/load.js';

/*
 * Saved policy versions are sealed by the owner when Silas saves them (kind 'policy-version' of
 * keys/sealed-state.ts; docs/policy-editor.md "History"): a database writer who changes a
 * version's text and its SHA-256 together cannot make the seal match, so History shows the
 * version as changed outside Silas and neither Restore nor Diff treats it as the owner's.
 *
 * Versions saved before seals existed (migration 015) have none. They are trusted only when their
 * text carries a valid owner signature over the policy hash recorded beside it: Silas signed
 * every text it ever saved, and a forged text cannot carry that signature.
 */

export type VersionSeals = Pick<StateSeals, 'seal' | 'verify' | 'report'>;

export type VersionTrust = { trusted: true } | { trusted: false; refusal: SealRefusal };

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The sealed item's id: the path and the version number (a very long path by its digest, to fit a seal id). */
function versionSealId(path: string, seq: number): string {
  return path.length <= 480 ? `${path}#${seq}` : `sha256:${sha256(path)}#${seq}`;
}

/** What the seal covers: everything the row says about the version, its text by its digest. */
function sealedValue(row: Omit<PolicyVersionRow, 'id' | 'seal' | 'text'>) {
  return { path: row.path, seq: row.seq, text_sha256: row.textSha256, policy_hash: row.policyHash, signer: row.signer, action: row.action, saved_at: row.savedAt };
}

export function sealVersion(seals: VersionSeals, row: Omit<PolicyVersionRow, 'id' | 'seal'>): string {
  return seals.seal('owner', 'policy-version', versionSealId(row.path, row.seq), sealedValue(row));
}

/** Whether a saved version is the one Silas saved; without reporting (History lists many). */
export function versionTrust(seals: VersionSeals, trustedKeys: ReadonlyMap<string, Uint8Array>, row: PolicyVersionRow): VersionTrust {
  const id = versionSealId(row.path, row.seq);
  const refuse = (reason: SealRefusal['reason'], detail: string): VersionTrust => ({ trusted: false, refusal: { kind: 'policy-version', id, authority: 'owner', reason, detail } });
  if (sha256(row.text) !== row.textSha256) return refuse('mismatch', `version ${row.seq} of ${row.path}: its text no longer matches its recorded hash (changed outside Silas)`);
  if (row.seal !== null) {
    const checked = seals.verify('owner', 'policy-version', id, sealedValue(row), row.seal);
    return checked.ok ? { trusted: true } : { trusted: false, refusal: checked.refusal };
  }
  const loaded = loadPolicyText(row.text, { sourcePath: row.path, trustedKeys });
  if (loaded.ok && loaded.signedBy !== null && loaded.policy.hash === row.policyHash) return { trusted: true };
  return refuse('unsealed', `version ${row.seq} of ${row.path} carries no seal and its text no valid owner signature: it was changed outside Silas`);
}
