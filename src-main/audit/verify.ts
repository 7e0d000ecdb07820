import type { AuditCheckpoint, ChainBreak, ChainVerification } from '../../src-shared/schemas/audit.js';
import { verifyEd25519 } from '../keys/ed25519.js';
import type { CheckpointAnchor } from '../keys/ledger-key.js';
import { CHECKPOINT_EVENT, GENESIS_HASH, checkpointSigningBytes, linkHash } from './chain.js';
import type { LedgerKeys } from './ledger-keys.js';
import type { LinkMemo } from './link-memo.js';
import type { AuditRepository, EntryRow } from '../store/repositories/audit-repository.js';

/** What one verification looks at, read consistently: see `captureLedgerState`. */
export interface LedgerState {
  anchor: CheckpointAnchor | null;
  /** Index of the last entry, -1 for an empty chain. */
  headIndex: number;
  checkpoints: AuditCheckpoint[];
}

/**
 * Reads the keyring anchor, the head and the checkpoint rows under the write lock: writers
 * advance the anchor inside their write transaction, so only under the same lock do the
 * anchor and the database describe the same moment.
 */
export function captureLedgerState(repo: AuditRepository, keys: LedgerKeys): LedgerState {
  return repo.underWriteLock(() => ({ anchor: keys.anchors.read(), headIndex: repo.head()?.index ?? -1, checkpoints: repo.checkpoints() }));
}

/** A stored entry as far as checkpoints care: its hash, and which checkpoint it records (if any). */
interface EntryFacts {
  hash: string;
  checkpointId: string | null;
}

/** Told how many entries a walk has checked, every `every` entries (a worker's progress report). */
export interface WalkProgress {
  every: number;
  report(checked: number): void;
}

export interface WalkResult {
  entries: number;
  lastHash: string;
  facts: Map<number, EntryFacts>;
  firstInvalid: ChainBreak | null;
}

function checkpointIdOf(row: EntryRow): string | null {
  if (row.event !== CHECKPOINT_EVENT) return null;
  try {
    const id = (JSON.parse(row.data) as { checkpoint_id?: unknown }).checkpoint_id;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}

/**
 * Walks rows from `startIndex`, checking numbering, linkage and every (keyed) hash. Keeps the
 * facts of checkpoint entries and of the `wanted` indexes, so rows need no second pass. A
 * writer's checkpoint passes its `memo`: a row identical to a link it computed is not hashed
 * again, since the HMAC would be the one it computed (see `LinkMemo`).
 */
export function walkChain(rows: Iterable<EntryRow>, startIndex: number, startPrevHash: string, keys: LedgerKeys, wanted: ReadonlySet<number>, progress?: WalkProgress, memo?: LinkMemo): WalkResult {
  let expected = startIndex;
  const every = progress ? Math.max(1, progress.every) : 0;
  let prevHash = startPrevHash;
  const facts = new Map<number, EntryFacts>();
  const broken = (index: number, id: string | null, reason: string): WalkResult => ({ entries: expected - startIndex, lastHash: prevHash, facts, firstInvalid: { index, id, reason } });
  for (const row of rows) {
    if (row.idx !== expected) return broken(expected, null, `entry ${expected} is missing: the next stored entry is ${row.idx}`);
    if (row.prev_hash !== prevHash) {
      return broken(row.idx, row.id, `entry ${row.idx} does not link to entry ${row.idx - 1} (prev_hash differs): an entry was removed, inserted or reordered`);
    }
    if (!memo?.vouches(row) && linkHash(keys.chain, keys.keyedFrom, prevHash, { index: row.idx, id: row.id, ts: row.ts, event: row.event, dataJson: row.data }) !== row.hash) {
      return broken(row.idx, row.id, `entry ${row.idx} was modified after it was written (its ${row.idx >= keys.keyedFrom ? 'keyed ' : ''}hash does not match its content)`);
    }
    const checkpointId = row.idx >= keys.keyedFrom ? checkpointIdOf(row) : null;
    if (checkpointId !== null || wanted.has(row.idx)) facts.set(row.idx, { hash: row.hash, checkpointId });
    prevHash = row.hash;
    expected += 1;
    if (progress && (expected - startIndex) % every === 0) progress.report(expected - startIndex);
  }
  return { entries: expected - startIndex, lastHash: prevHash, facts, firstInvalid: null };
}

type FactsAt = (index: number) => EntryFacts | undefined;

function storedFacts(repo: AuditRepository, keyedFrom: number): FactsAt {
  return (index) => {
    const row = repo.entryAt(index);
    return row ? { hash: row.hash, checkpointId: index >= keyedFrom ? checkpointIdOf(row) : null } : undefined;
  };
}

/** A checkpoint row counts only when the keyring's owner key signed it over the entry it names. */
export function checkCheckpoint(cp: AuditCheckpoint, keys: LedgerKeys, chainLength: number, factsAt: FactsAt): ChainBreak | null {
  if (cp.keyFingerprint !== keys.signer.fingerprint) {
    return { index: cp.index, id: cp.id, reason: `checkpoint ${cp.id} is signed by an unknown key ${cp.keyFingerprint} (only the owner key in the OS keyring, ${keys.signer.fingerprint}, is trusted)` };
  }
  if (!verifyEd25519(keys.signer.publicKey, checkpointSigningBytes(cp), Buffer.from(cp.signature, 'base64'))) {
    return { index: cp.index, id: cp.id, reason: `checkpoint ${cp.id} at entry ${cp.index} has an invalid signature (forged or edited)` };
  }
  if (cp.index >= chainLength) {
    return { index: chainLength, id: cp.id, reason: `the chain was truncated: signed checkpoint ${cp.id} covers entry ${cp.index} but the chain ends before entry ${chainLength}` };
  }
  const facts = factsAt(cp.index);
  if (facts?.hash !== cp.hash) return { index: cp.index, id: cp.id, reason: `entry ${cp.index} differs from signed checkpoint ${cp.id}: the chain was rewritten` };
  if (cp.index >= keys.keyedFrom && facts.checkpointId !== cp.id) {
    return { index: cp.index, id: cp.id, reason: `checkpoint ${cp.id} does not sign its own chain entry (entry ${cp.index} is not its audit.checkpoint record)` };
  }
  return null;
}

/** The keyring anchor must still be on the chain: this is what detects deleted checkpoints and truncation. */
function checkAnchor(state: LedgerState, keys: LedgerKeys, chainLength: number, factsAt: FactsAt): ChainBreak | null {
  const anchor = state.anchor;
  if (!anchor) {
    // Legitimate only before the first keyed checkpoint: writing one always sets the anchor.
    const keyed = state.checkpoints.find((cp) => cp.index >= keys.keyedFrom);
    if (!keyed) return null;
    return { index: keyed.index, id: keyed.id, reason: `the OS keyring holds no checkpoint anchor for this ledger, yet checkpoint ${keyed.id} claims to cover keyed entries (see docs/ledger.md)` };
  }
  if (anchor.index >= chainLength) {
    return { index: chainLength, id: anchor.checkpointId, reason: `the chain was truncated: it ends before entry ${anchor.index}, which holds checkpoint ${anchor.checkpointId} anchored in the OS keyring` };
  }
  const facts = factsAt(anchor.index);
  if (facts?.hash !== anchor.hash || facts.checkpointId !== anchor.checkpointId) {
    return { index: anchor.index, id: anchor.checkpointId, reason: `entry ${anchor.index} is not the checkpoint ${anchor.checkpointId} anchored in the OS keyring: the chain was rewritten or rolled back` };
  }
  if (!state.checkpoints.some((cp) => cp.id === anchor.checkpointId)) {
    return { index: anchor.index, id: anchor.checkpointId, reason: `the signed row of checkpoint ${anchor.checkpointId} (anchored in the OS keyring) was deleted` };
  }
  return null;
}

/** Every keyed checkpoint entry must keep its signed row: deleting rows is detected here. */
function checkRecordedCheckpoints(facts: Map<number, EntryFacts>, checkpoints: readonly AuditCheckpoint[]): ChainBreak | null {
  const ids = new Set(checkpoints.map((cp) => cp.id));
  for (const [index, fact] of facts) {
    if (fact.checkpointId !== null && !ids.has(fact.checkpointId)) {
      return { index, id: fact.checkpointId || null, reason: `entry ${index} records checkpoint ${fact.checkpointId || '(unnamed)'}, whose signed row was deleted` };
    }
  }
  return null;
}

function lowest(...breaks: (ChainBreak | null)[]): ChainBreak | null {
  let best: ChainBreak | null = null;
  for (const b of breaks) if (b && (!best || b.index < best.index)) best = b;
  return best;
}

/** Full verification: every entry from genesis, every checkpoint, the keyring anchor. O(n). */
export function verifyWholeChain(repo: AuditRepository, keys: LedgerKeys, progress?: WalkProgress): ChainVerification {
  const { lastHash: _lastHash, ...result } = verifyWholeChainAt(captureLedgerState(repo, keys), repo, keys, progress);
  return result;
}

/**
 * `verifyWholeChain` over a state captured elsewhere: a worker thread reads the rows on its own
 * read-only connection, while the anchor was read under the runtime's write lock.
 */
export function verifyWholeChainAt(state: LedgerState, repo: AuditRepository, keys: LedgerKeys, progress?: WalkProgress): ChainVerification & { lastHash: string } {
  const wanted = new Set(state.checkpoints.map((c) => c.index));
  if (state.anchor) wanted.add(state.anchor.index);
  const result = walkChain(repo.iterateRange(0, state.headIndex), 0, GENESIS_HASH, keys, wanted, progress);
  const chainLength = state.headIndex + 1;
  // Entries past a break were not hashed; compare those against the stored row.
  const stored = storedFacts(repo, keys.keyedFrom);
  const factsAt: FactsAt = (i) => result.facts.get(i) ?? stored(i);
  const breaks = [result.firstInvalid, checkRecordedCheckpoints(result.facts, state.checkpoints)];
  for (const cp of state.checkpoints) breaks.push(checkCheckpoint(cp, keys, chainLength, factsAt));
  breaks.push(checkAnchor(state, keys, chainLength, factsAt));
  const firstInvalid = lowest(...breaks);
  return { valid: firstInvalid === null, entries: repo.count(), checkpoints: state.checkpoints.length, firstInvalid, lastHash: result.lastHash };
}

/**
 * Incremental verification (spec 002 §4.16): trust the keyring-anchored (or given) signed
 * checkpoint and walk only the entries after it. Cost grows with what was appended since.
 */
export function verifyFromCheckpoint(repo: AuditRepository, keys: LedgerKeys, checkpointId?: string): ChainVerification {
  const state = captureLedgerState(repo, keys);
  const wantedId = checkpointId ?? state.anchor?.checkpointId;
  if (wantedId === undefined) return verifyWholeChain(repo, keys);
  const cp = state.checkpoints.find((c) => c.id === wantedId);
  const chainLength = state.headIndex + 1;
  if (!cp) {
    const reason = checkpointId ? `no checkpoint ${checkpointId}` : `the signed row of checkpoint ${wantedId} (anchored in the OS keyring) was deleted`;
    return { valid: false, entries: 0, checkpoints: 0, firstInvalid: { index: checkpointId ? 0 : state.anchor!.index, id: wantedId, reason } };
  }
  const start = repo.entryAt(cp.index);
  const startFacts: EntryFacts | undefined = start ? { hash: start.hash, checkpointId: cp.index >= keys.keyedFrom ? checkpointIdOf(start) : null } : undefined;
  const own = checkCheckpoint(cp, keys, chainLength, () => startFacts);
  if (own) return { valid: false, entries: 0, checkpoints: 1, firstInvalid: own };
  // The signed checkpoint vouches for its entry as a finished verification would: the rest is verifyAfter's.
  const after = verifyAfter(state, repo, keys, { index: cp.index, hash: cp.hash, vouchedBy: `checkpoint ${cp.id} was signed` });
  return { valid: after.valid, entries: after.checked, checkpoints: state.checkpoints.filter((c) => c.index >= cp.index).length, firstInvalid: after.firstInvalid };
}

/** An entry an earlier verification reached (or a signed checkpoint covers), and the hash it had then. */
export interface TrustedEntry {
  index: number;
  hash: string;
  /** What vouched for it, for the message when it changed since (default: an earlier verification). */
  vouchedBy?: string;
}

/**
 * Verification of what is new since `from` (docs/ledger.md, "Verifying only what is new"). The
 * entry at `from` must still be stored with the hash it had and still hash to it from its own
 * stored content, so a rewrite of the last verified entry (or the anchored checkpoint) is
 * caught; entries below it are trusted as far as the earlier result went. Every checkpoint
 * after it and the keyring anchor are checked as in a full verification.
 */
export function verifyAfter(state: LedgerState, repo: AuditRepository, keys: LedgerKeys, from: TrustedEntry, progress?: WalkProgress): ChainVerification & { lastHash: string; checked: number } {
  const chainLength = state.headIndex + 1;
  // Entries as the head says (indexes are dense): a COUNT(*) here would cost O(ledger) for a run over the new entries only.
  const fail = (firstInvalid: ChainBreak, checked: number) => ({ valid: false, entries: chainLength, checkpoints: state.checkpoints.length, firstInvalid, lastHash: from.hash, checked });
  const start = from.index < chainLength ? repo.entryAt(from.index) : null;
  if (!start) {
    const reason = from.index >= chainLength
      ? `the chain was truncated: entry ${from.index} was verified before, but the chain now ends before entry ${chainLength}`
      : `entry ${from.index} is missing: it was verified before`;
    return fail({ index: Math.min(from.index, chainLength), id: null, reason }, 0);
  }
  const recomputed = linkHash(keys.chain, keys.keyedFrom, start.prev_hash, { index: start.idx, id: start.id, ts: start.ts, event: start.event, dataJson: start.data });
  if (start.hash !== from.hash || recomputed !== from.hash) {
    return fail({ index: from.index, id: start.id, reason: `entry ${from.index} was modified after ${from.vouchedBy ?? 'it was verified'} (its stored content no longer hashes to the hash it had then)` }, 1);
  }
  const startFacts: EntryFacts = { hash: start.hash, checkpointId: start.idx >= keys.keyedFrom ? checkpointIdOf(start) : null };
  const later = state.checkpoints.filter((c) => c.index > from.index);
  const wanted = new Set(later.map((c) => c.index));
  if (state.anchor) wanted.add(state.anchor.index);
  const result = walkChain(repo.iterateRange(from.index + 1, state.headIndex), from.index + 1, from.hash, keys, wanted, progress);
  const stored = storedFacts(repo, keys.keyedFrom);
  const factsAt: FactsAt = (i) => (i === from.index ? startFacts : (result.facts.get(i) ?? stored(i)));
  const walked = new Map(result.facts);
  walked.set(from.index, startFacts);
  const breaks = [result.firstInvalid, checkRecordedCheckpoints(walked, state.checkpoints)];
  for (const c of later) breaks.push(checkCheckpoint(c, keys, chainLength, factsAt));
  breaks.push(checkAnchor(state, keys, chainLength, factsAt));
  const firstInvalid = lowest(...breaks);
  return { valid: firstInvalid === null, entries: chainLength, checkpoints: state.checkpoints.length, firstInvalid, lastHash: result.lastHash, checked: result.entries + 1 };
}
