import type { ChainBreak } from '../../src-shared/schemas/audit.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { ChainKey } from '../keys/ledger-key.js';
import { GENESIS_HASH } from './chain.js';
import type { LedgerKeys } from './ledger-keys.js';
import type { AuditRepository } from '../store/repositories/audit-repository.js';
import { checkCheckpoint, walkChain } from './verify.js';

/** Never consulted: below an infinite `keyedFrom` every link is the legacy sha256. */
const NO_KEY: ChainKey = {
  keyId: 'legacy',
  mac: () => {
    throw new Error('a legacy chain has no keyed entries');
  },
};

/**
 * Checks a chain written before the home had a ledger key, as well as it can be checked: plain
 * sha256 links and the owner-signed checkpoints of that time. Run before the first keyed entry
 * seals it, so a ledger key never vouches for a legacy chain that is already broken. (Entries
 * after its last legacy checkpoint were never protected; docs/ledger.md says so.)
 */
export function verifyLegacyChain(repo: AuditRepository, signer: OwnerSigner): ChainBreak | null {
  const head = repo.head();
  if (!head) return null;
  const keys: LedgerKeys = { chain: NO_KEY, keyedFrom: Number.MAX_SAFE_INTEGER, signer, anchors: { read: () => null, write: () => undefined } };
  const checkpoints = repo.checkpoints();
  const walk = walkChain(repo.iterateRange(0, head.index), 0, GENESIS_HASH, keys, new Set(checkpoints.map((c) => c.index)));
  if (walk.firstInvalid) return walk.firstInvalid;
  for (const cp of checkpoints) {
    const problem = checkCheckpoint(cp, keys, head.index + 1, (i) => walk.facts.get(i));
    if (problem) return problem;
  }
  return null;
}
