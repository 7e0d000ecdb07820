import type { AuditCheckpoint, ChainBreak, ChainVerification } from '../../src-shared/schemas/audit.js';
import { verifyEd25519 } from '../keys/ed25519.js';
import { GENESIS_HASH, checkpointSigningBytes, entryHash } from './chain.js';
import type { AuditRepository, EntryRow } from './repository.js';

/** Public keys whose checkpoint signatures are accepted, by fingerprint. */
export type TrustedKeys = ReadonlyMap<string, Uint8Array>;

interface WalkResult {
  entries: number;
  lastIndex: number;
  lastHash: string;
  hashes: Map<number, string>;
  firstInvalid: ChainBreak | null;
}

/**
 * Walks the chain from `startIndex`, checking numbering, linkage and every hash. Records the
 * hashes at the given indexes so checkpoints can be compared without a second pass.
 */
function walk(rows: Iterable<EntryRow>, startIndex: number, startPrevHash: string, wanted: ReadonlySet<number>): WalkResult {
  let expected = startIndex;
  let prevHash = startPrevHash;
  let entries = 0;
  const hashes = new Map<number, string>();
  for (const row of rows) {
    if (row.idx !== expected) {
      return { entries, lastIndex: expected - 1, lastHash: prevHash, hashes, firstInvalid: { index: expected, id: null, reason: `entry ${expected} is missing: the next stored entry is ${row.idx}` } };
    }
    if (row.prev_hash !== prevHash) {
      return { entries, lastIndex: expected - 1, lastHash: prevHash, hashes, firstInvalid: { index: row.idx, id: row.id, reason: `entry ${row.idx} does not link to entry ${row.idx - 1} (prev_hash differs): an entry was removed, inserted or reordered` } };
    }
    const recomputed = entryHash(prevHash, { index: row.idx, id: row.id, ts: row.ts, event: row.event, dataJson: row.data });
    if (recomputed !== row.hash) {
      return { entries, lastIndex: expected - 1, lastHash: prevHash, hashes, firstInvalid: { index: row.idx, id: row.id, reason: `entry ${row.idx} was modified after it was written (its hash does not match its content)` } };
    }
    if (wanted.has(row.idx)) hashes.set(row.idx, row.hash);
    prevHash = row.hash;
    expected += 1;
    entries += 1;
  }
  return { entries, lastIndex: expected - 1, lastHash: prevHash, hashes, firstInvalid: null };
}

function checkCheckpoint(cp: AuditCheckpoint, trusted: TrustedKeys, chainLength: number, hashAt: (index: number) => string | undefined): ChainBreak | null {
  const key = trusted.get(cp.keyFingerprint);
  if (!key) {
    return { index: cp.index, id: cp.id, reason: `checkpoint ${cp.id} is signed by an unknown key ${cp.keyFingerprint}` };
  }
  const signature = Buffer.from(cp.signature, 'base64');
  if (!verifyEd25519(key, checkpointSigningBytes(cp), signature)) {
    return { index: cp.index, id: cp.id, reason: `checkpoint ${cp.id} at entry ${cp.index} has an invalid signature (forged or edited)` };
  }
  if (cp.index >= chainLength) {
    return { index: chainLength, id: cp.id, reason: `the chain was truncated: signed checkpoint ${cp.id} covers entry ${cp.index} but the chain ends before entry ${chainLength}` };
  }
  const actual = hashAt(cp.index);
  if (actual !== cp.hash) {
    return { index: cp.index, id: cp.id, reason: `entry ${cp.index} differs from signed checkpoint ${cp.id}: the chain was rewritten` };
  }
  return null;
}

function lowest(a: ChainBreak | null, b: ChainBreak | null): ChainBreak | null {
  if (!a) return b;
  if (!b) return a;
  return b.index < a.index ? b : a;
}

/** Full verification: every entry from genesis, every checkpoint. O(n). */
export function verifyWholeChain(repo: AuditRepository, trusted: TrustedKeys): ChainVerification {
  const checkpoints = repo.checkpoints();
  const wanted = new Set(checkpoints.map((c) => c.index));
  const result = walk(repo.iterateFrom(0), 0, GENESIS_HASH, wanted);
  let firstInvalid = result.firstInvalid;
  const chainLength = firstInvalid ? Math.max(result.lastIndex + 1, repo.count()) : result.entries;
  for (const cp of checkpoints) {
    // Entries past a break were not hashed; compare those checkpoints against the stored row.
    const problem = checkCheckpoint(cp, trusted, chainLength, (i) => result.hashes.get(i) ?? repo.entryAt(i)?.hash);
    firstInvalid = lowest(firstInvalid, problem);
  }
  return { valid: firstInvalid === null, entries: repo.count(), checkpoints: checkpoints.length, firstInvalid };
}

/**
 * Incremental verification (spec 002 §4.16): trust the latest (or given) signed checkpoint and
 * walk only the entries after it. Cost grows with what was appended since, not with the chain.
 */
export function verifyFromCheckpoint(repo: AuditRepository, trusted: TrustedKeys, checkpointId?: string): ChainVerification {
  const cp = checkpointId ? repo.checkpoint(checkpointId) : repo.latestCheckpoint();
  if (checkpointId && !cp) {
    return { valid: false, entries: 0, checkpoints: 0, firstInvalid: { index: 0, id: checkpointId, reason: `no checkpoint ${checkpointId}` } };
  }
  if (!cp) return verifyWholeChain(repo, trusted);
  const head = repo.head();
  const chainLength = head ? head.index + 1 : 0;
  const anchor = repo.entryAt(cp.index);
  const problem = checkCheckpoint(cp, trusted, chainLength, () => anchor?.hash);
  if (problem) return { valid: false, entries: 0, checkpoints: 1, firstInvalid: problem };
  const anchorRecomputed = entryHash(anchor!.prev_hash, { index: anchor!.idx, id: anchor!.id, ts: anchor!.ts, event: anchor!.event, dataJson: anchor!.data });
  if (anchorRecomputed !== cp.hash) {
    return { valid: false, entries: 1, checkpoints: 1, firstInvalid: { index: cp.index, id: anchor!.id, reason: `entry ${cp.index} was modified after checkpoint ${cp.id} was signed` } };
  }
  const result = walk(repo.iterateFrom(cp.index + 1), cp.index + 1, cp.hash, new Set());
  return { valid: result.firstInvalid === null, entries: result.entries + 1, checkpoints: 1, firstInvalid: result.firstInvalid };
}
