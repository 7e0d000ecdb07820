import type { AuditCheckpoint, ChainHead } from '../../src-shared/schemas/audit.js';
import { CHECKPOINT_EVENT, GENESIS_HASH, canonicalData, checkpointSigningBytes, linkHash, type EntryBody } from './chain.js';
import { LedgerTamperError, type LedgerKeys } from './ledger-keys.js';
import { LinkMemo } from './link-memo.js';
import type { AuditRepository, EntryRow } from '../store/repositories/audit-repository.js';
import { walkChain } from './verify.js';

/** Rows read per query while a checkpoint walks the entries since the last one. */
const WALK_PAGE_ROWS = 1000;

/**
 * Rows `from..to` in chain order, a page of `WALK_PAGE_ROWS` per query. Under the write lock the
 * pages share one snapshot, and reading each page whole costs half of stepping a cursor row by row
 * (every busy proxy walks about a thousand entries a second here).
 */
function* rowsInPages(repo: AuditRepository, from: number, to: number): Generator<EntryRow> {
  let after = from - 1;
  for (;;) {
    const rows = repo.pageAfter(after, to, undefined, WALK_PAGE_ROWS);
    yield* rows;
    if (rows.length < WALK_PAGE_ROWS) return;
    after = rows[rows.length - 1]!.idx;
  }
}

/** At most this much time or this many entries stay unprotected by a signed, anchored checkpoint. */
export const CHECKPOINT_MAX_AGE_MS = 1000;
export const CHECKPOINT_MAX_ENTRIES = 1000;
/** Links remembered at most between two of this writer's checkpoints: more than the cadence lets pile up, and a few MB of data. */
const LINK_MEMO_LIMIT = 4 * CHECKPOINT_MAX_ENTRIES;
const LINK_MEMO_MAX_CHARS = 4 * 1024 * 1024;

/**
 * Writes checkpoints: each one first verifies every entry since the previous checkpoint (which
 * must be the one the OS keyring anchors), then appends an `audit.checkpoint` entry, signs that
 * entry's index and keyed hash with the owner key, and advances the keyring anchor to it. All of
 * it runs under the ledger's write lock, so concurrent writers checkpoint one after the other.
 */
export class Checkpointer {
  /** The links this writer computed since its last checkpoint, so that checkpoint need not recompute them. */
  private readonly memo: LinkMemo;
  /**
   * What this writer last learnt of the latest keyed checkpoint under the write lock, and the head
   * it learnt it at. Every legitimate write appends an entry (a checkpoint too records itself as
   * one), so while the head is still `head` — read afresh under the lock on every append — no
   * writer in any process has appended or checkpointed since, and the checkpoint rows need not be
   * read again (a query per append, paid by a proxy on every call). Null when unknown. Only the
   * cadence uses it: `writeLocked` reads the checkpoint rows and the keyring anchor afresh before
   * it signs anything.
   */
  private known: { head: ChainHead; covered: number; since: number } | null = null;

  constructor(
    private readonly repo: AuditRepository,
    private readonly keys: LedgerKeys,
    private readonly now: () => Date,
    private readonly newId: () => string,
  ) {
    this.memo = new LinkMemo(keys, LINK_MEMO_LIMIT, LINK_MEMO_MAX_CHARS);
  }

  /** Links an entry under the ledger's keys (what `insertLinked` is given), remembering it for the next checkpoint's walk. */
  link(prevHash: string, body: EntryBody): string {
    return this.memo.link(prevHash, body);
  }

  /** After a transaction of this writer failed: what it learnt inside it may have rolled back. */
  forget(): void {
    this.known = null;
  }

  /**
   * Under the write lock, before an append: checkpoints first when the entries already there are
   * older than the age limit (so a decision stays the newest entry), and returns the index the
   * latest keyed checkpoint then covers. Every audited tool call passes here, so the head and the
   * latest checkpoint are read once; the check after the append reuses the returned index, and
   * the insert links to the returned head (still the head: the write lock is held).
   */
  beforeAppend(): { covered: number; head: ChainHead | null } {
    const { keyedFrom } = this.keys;
    const head = this.repo.head();
    const known = this.known;
    let covered: number;
    let since: number;
    if (known && head && head.index === known.head.index && head.hash === known.head.hash) {
      ({ covered, since } = known);
    } else {
      this.known = null;
      const latest = this.repo.latestCheckpoint();
      const keyed = latest && latest.index >= keyedFrom ? latest : null;
      covered = keyed ? keyed.index : keyedFrom - 1;
      if (!head || head.index <= covered) return { covered, head };
      // No keyed checkpoint yet: the age of the first keyed entry decides (not remembered: that entry may not exist yet).
      since = keyed ? Date.parse(keyed.createdAt) : Date.parse(this.repo.entryAt(keyedFrom)?.ts ?? '');
      if (keyed) this.known = { head, covered, since };
    }
    if (head.index <= covered || !(this.now().getTime() - since >= CHECKPOINT_MAX_AGE_MS)) return { covered, head };
    // A checkpoint is always the head it covers (its own entry, or the head it found already covered).
    const checkpoint = this.writeLocked();
    return checkpoint ? { covered: checkpoint.index, head: { index: checkpoint.index, hash: checkpoint.hash } } : { covered, head };
  }

  /**
   * After appending `last` (linked to the head `beforeAppend` returned, which reported
   * `covered`): checkpoints when too many entries are unprotected, and otherwise remembers the
   * new head, so the next append under an unchanged head need not read the checkpoint rows.
   */
  afterAppend(last: ChainHead, covered: number): void {
    if (this.dueAfterAppend(last.index, covered)) {
      this.writeLocked();
      return;
    }
    if (this.known) this.known = { head: { index: last.index, hash: last.hash }, covered: this.known.covered, since: this.known.since };
  }

  /** After appending up to `lastIndex`: too many entries since the checkpoint `beforeAppend` reported. */
  dueAfterAppend(lastIndex: number, covered: number): boolean {
    return lastIndex - covered >= CHECKPOINT_MAX_ENTRIES;
  }

  /** Whether entries exist that no checkpoint covers yet. */
  unprotected(): boolean {
    const head = this.repo.head();
    if (!head) return false;
    const latest = this.repo.latestCheckpoint();
    return !latest || latest.index < head.index;
  }

  /** Writes a checkpoint over the current head unless the head is one already. Call under the write lock. */
  writeLocked(): AuditCheckpoint | null {
    // Set again only once this checkpoint (or the one the head already is) is known for sure.
    this.known = null;
    const head = this.repo.head();
    if (!head) return null;
    const { keys, repo } = this;
    const anchor = keys.anchors.read();
    const latest = repo.latestCheckpoint();
    let from = keys.keyedFrom;
    let prevHash = GENESIS_HASH;
    if (anchor) {
      if (!latest || latest.id !== anchor.checkpointId || latest.index !== anchor.index || latest.hash !== anchor.hash) {
        throw new LedgerTamperError(anchor.index, `the latest checkpoint in the database is not ${anchor.checkpointId} at entry ${anchor.index}, which the OS keyring holds as the latest (checkpoints were deleted or the database was rolled back)`);
      }
      if (repo.entryAt(anchor.index)?.hash !== anchor.hash) {
        throw new LedgerTamperError(anchor.index, `entry ${anchor.index} is no longer the checkpoint ${anchor.checkpointId} the OS keyring anchors`);
      }
      if (head.index === anchor.index) {
        this.remember(head, latest);
        return latest;
      }
      from = anchor.index + 1;
      prevHash = anchor.hash;
    } else {
      if (latest && latest.index >= keys.keyedFrom) {
        throw new LedgerTamperError(latest.index, `checkpoint ${latest.id} claims to cover keyed entries, but the OS keyring holds no anchor for this ledger`);
      }
      if (from > 0) {
        const sealed = repo.entryAt(from - 1);
        if (!sealed) throw new LedgerTamperError(from - 1, `entry ${from - 1}, the last legacy entry the ledger key seals, is missing`);
        prevHash = sealed.hash;
      }
    }
    const walk = walkChain(rowsInPages(repo, from, head.index), from, prevHash, keys, new Set(), undefined, this.memo);
    // Whatever the outcome, the next walk starts past every entry linked so far (or is refused again).
    this.memo.clear();
    if (walk.firstInvalid) throw new LedgerTamperError(walk.firstInvalid.index, walk.firstInvalid.reason);
    const stray = [...walk.facts.keys()][0];
    if (stray !== undefined) throw new LedgerTamperError(stray, `entry ${stray} records a checkpoint after the one the OS keyring anchors`);

    const id = this.newId();
    const createdAt = this.now().toISOString();
    const data = canonicalData({ checkpoint_id: id, key_fingerprint: keys.signer.fingerprint, previous_checkpoint_id: anchor?.checkpointId ?? null, entries_verified: walk.entries });
    const [entry] = repo.insertLinked([{ id: this.newId(), ts: createdAt, event: CHECKPOINT_EVENT, dataJson: data }], (prev, body) => linkHash(keys.chain, keys.keyedFrom, prev, body));
    const body = { id, index: entry!.index, hash: entry!.hash, createdAt, keyFingerprint: keys.signer.fingerprint };
    const checkpoint: AuditCheckpoint = { ...body, signature: keys.signer.sign(checkpointSigningBytes(body)).toString('base64') };
    repo.insertCheckpoint(checkpoint);
    // Last, still inside the transaction: if the keyring refuses, the checkpoint rolls back with it.
    keys.anchors.write({ index: entry!.index, hash: entry!.hash, checkpointId: id });
    this.remember({ index: entry!.index, hash: entry!.hash }, checkpoint);
    return checkpoint;
  }

  /** `checkpoint` is the latest at `head`, as `beforeAppend` would read it (see `known`). */
  private remember(head: ChainHead, checkpoint: AuditCheckpoint): void {
    this.known = checkpoint.index >= this.keys.keyedFrom ? { head, covered: checkpoint.index, since: Date.parse(checkpoint.createdAt) } : null;
  }
}
