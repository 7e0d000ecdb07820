import { randomFillSync } from 'node:crypto';
import type { AuditCheckpoint, AuditEntry, ChainHead, ChainVerification } from '../../src-shared/schemas/audit.js';
import { AuditEventName } from '../../src-shared/schemas/audit.js';
import { auditDataProblem, auditEvents, type AuditCatalogue, type AuditEventData, type AuditEvents, type AuditItem } from '../../src-shared/audit/events.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { CHAIN_KEYED_EVENT, CHECKPOINT_EVENT, linkHash, normaliseData } from './chain.js';
import { Checkpointer } from './checkpointer.js';
import { LedgerTamperError, keysMissing, type LedgerKeys } from './ledger-keys.js';
import { AuditRepository, rowToEntry, type EntryRow, type NewEntry } from '../store/repositories/audit-repository.js';
import { verifyFromCheckpoint, verifyWholeChain, type WalkProgress } from './verify.js';

export interface AuditPage {
  entries: AuditEntry[];
  total: number;
  head: ChainHead | null;
}

/**
 * The one ledger every decision goes through (DESIGN invariant 3). Events are the catalogue's
 * (`src-shared/audit/events.ts`): a name it does not declare, or data not of its declared
 * shape, is refused — at compile time, and at run time for data built from elsewhere.
 */
export interface AuditLog<C extends AuditCatalogue = AuditEvents> {
  append<E extends keyof C & string>(event: E, data: AuditEventData<E, C>): AuditEntry;
  appendBatch(items: readonly AuditItem<C>[]): AuditEntry[];
  writeCheckpoint(): AuditCheckpoint | null;
  /** `progress` hears every `progress.every` entries walked (long ledgers: the CLI shows it). */
  verifyChain(progress?: WalkProgress): ChainVerification;
  verifyFromCheckpoint(checkpointId?: string): ChainVerification;
  list(before: number | undefined, limit: number): AuditPage;
  after(index: number, limit: number): AuditEntry[];
  tail(count: number): AuditEntry[];
  since(isoTime?: string): Iterable<AuditEntry>;
  head(): ChainHead | null;
}

export interface AuditLogDeps<C extends AuditCatalogue = AuditEvents> {
  repository: AuditRepository;
  /** The events this log accepts; tests add their own to the app's (testing/audit-events.ts). */
  catalogue?: C;
  /**
   * The keyring-held keys. Without them the log can still be read, but appending and
   * verifying fail closed (DESIGN invariant 9): nothing found in the database is trusted.
   */
  keys: LedgerKeys | null;
  /** Why `keys` is null, for the error that says how to fix it. */
  keysUnavailable?: string;
  /**
   * Long-lived writers (runtime, proxies): this long after an append that left entries
   * unprotected, checkpoint them even if nothing else is appended.
   */
  idleCheckpointMs?: number;
  /** Told when a background checkpoint fails (the next append reports it again). */
  onCheckpointError?: (error: unknown) => void;
  now?: () => Date;
  newId?: () => string;
}

/** Rows per read of `since()`: large enough to amortise a query, small enough to keep memory flat. */
const SINCE_PAGE_SIZE = 1000;

/**
 * Written only by the ledger itself: a caller's entry under these names would pose as a checkpoint
 * or seal, whatever a catalogue says of them (a test catalogue may omit `reserved`).
 */
const RESERVED_EVENTS = new Set([CHECKPOINT_EVENT, CHAIN_KEYED_EVENT]);

/** The catalogue entry of `event`: one lookup on the hot path (catalogue names are checked for style in events.test.ts). */
function checkEventName(event: string, catalogue: AuditCatalogue): AuditCatalogue[string] {
  const spec = Object.prototype.hasOwnProperty.call(catalogue, event) ? catalogue[event] : undefined;
  if (spec?.reserved || RESERVED_EVENTS.has(event)) throw new SilasError(ErrorCode.InvalidArgs, `audit event "${event}" is reserved for the ledger itself; choose another name`);
  if (spec) return spec;
  // Refused either way; the style check only words the refusal better (cold path).
  const name = AuditEventName.safeParse(event);
  if (!name.success) throw new SilasError(ErrorCode.InvalidArgs, `audit event "${String(event).slice(0, 100)}": ${name.error.issues[0]?.message ?? 'invalid name'}`);
  throw new SilasError(ErrorCode.InvalidArgs, `audit event "${event}" is not in the catalogue; declare it with its data schema in src-shared/audit/events.ts`);
}

// Random bytes are drawn in blocks (as randomUUID does): one getrandom per 409 ids, not per id,
// and hex-encoded once per block; the time part is encoded once per millisecond.
const pool = Buffer.alloc(4090);
let poolHex = '';
let poolOffset = pool.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
let prefixMs = -1;
let prefix = '';

/**
 * A random, time-ordered entry id (RFC 9562 UUIDv7: 48-bit Unix milliseconds, 74 random bits).
 * Ids are opaque and unique like v4 ones, but successive ids sort together, so the UNIQUE index
 * on `id` grows at its end instead of dirtying a random page per entry — a third of the cost of
 * an append was writing those pages to the WAL.
 */
export function timeOrderedId(ms: number = Date.now()): string {
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool);
    poolHex = pool.toString('hex');
    poolOffset = 0;
  }
  if (ms !== prefixMs) {
    const t = [Math.floor(ms / 2 ** 40) & 0xff, Math.floor(ms / 2 ** 32) & 0xff, (ms >>> 24) & 0xff, (ms >>> 16) & 0xff, (ms >>> 8) & 0xff, ms & 0xff].map((byte) => HEX[byte]!);
    prefix = `${t[0]}${t[1]}${t[2]}${t[3]}-${t[4]}${t[5]}-`;
    prefixMs = ms;
  }
  // Bytes 6–15 are pool[o…o+9]; byte 6 carries version 7 in its high nibble, byte 8 variant 10.
  const o = poolOffset;
  const x = 2 * o;
  poolOffset += 10;
  return `${prefix}7${poolHex.slice(x + 1, x + 4)}-${HEX[0x80 | (pool[o + 2]! & 0x3f)]}${poolHex.slice(x + 6, x + 8)}-${poolHex.slice(x + 8, x + 20)}`;
}

export class SqliteAuditLog<C extends AuditCatalogue = AuditEvents> implements AuditLog<C> {
  private readonly repo: AuditRepository;
  private readonly catalogue: AuditCatalogue;
  private readonly now: () => Date;
  private readonly newId: () => string;
  private readonly checkpointer: Checkpointer | null;
  private idleTimer: NodeJS.Timeout | null = null;
  private tamperRecorded = false;

  constructor(private readonly deps: AuditLogDeps<C>) {
    this.repo = deps.repository;
    this.catalogue = deps.catalogue ?? auditEvents;
    this.now = deps.now ?? (() => new Date());
    this.newId = deps.newId ?? (() => timeOrderedId());
    this.checkpointer = deps.keys ? new Checkpointer(this.repo, deps.keys, this.now, this.newId) : null;
  }

  private requireKeys(what: string): { keys: LedgerKeys; checkpointer: Checkpointer } {
    if (!this.deps.keys || !this.checkpointer) throw keysMissing(what, this.deps.keysUnavailable ?? 'this process was not given');
    return { keys: this.deps.keys, checkpointer: this.checkpointer };
  }

  append<E extends keyof C & string>(event: E, data: AuditEventData<E, C>): AuditEntry {
    return this.appendBatch([{ event, data } as AuditItem<C>])[0]!;
  }

  appendBatch(items: readonly AuditItem<C>[]): AuditEntry[] {
    // One clock reading per batch: its entries are committed together, in one transaction.
    const ts = this.now().toISOString();
    const prepared = items.map((item: { event: string; data?: unknown }) => {
      const spec = checkEventName(item.event, this.catalogue);
      const data = normaliseData(item.data ?? {});
      // The normalised copy is what the chain stores, so that is what must match the schema.
      // Refused, not recorded as something else: a decision in a shape readers do not expect.
      const problem = auditDataProblem(item.event, spec, data.value);
      if (problem !== null) throw new SilasError(ErrorCode.InvalidArgs, problem);
      return { id: this.newId(), ts, event: item.event, dataJson: data.json, data: data.value };
    });
    return this.appendPrepared(prepared);
  }

  /**
   * The first keyed entry of a home that has unkeyed entries: its keyed hash covers the legacy
   * head through `prev_hash`, so rewriting any legacy entry now breaks a keyed link.
   */
  sealLegacy(legacyEntries: number, legacyHeadHash: string): AuditEntry {
    const data = normaliseData({ legacy_entries: legacyEntries, legacy_head_hash: legacyHeadHash });
    return this.appendPrepared([{ id: this.newId(), ts: this.now().toISOString(), event: CHAIN_KEYED_EVENT, dataJson: data.json, data: data.value }])[0]!;
  }

  private appendPrepared(prepared: readonly NewEntry[]): AuditEntry[] {
    const { checkpointer } = this.requireKeys('append to the audit ledger');
    // Linked through the checkpointer, which remembers each link for its next walk (audit/link-memo.ts).
    const link = (prev: string, body: Parameters<typeof linkHash>[3]) => checkpointer.link(prev, body);
    let appended: AuditEntry[];
    try {
      appended = this.repo.underWriteLock(() => {
        const { covered, head } = checkpointer.beforeAppend();
        const entries = this.repo.insertLinked(prepared, link, head);
        const last = entries.at(-1);
        if (last) checkpointer.afterAppend(last, covered);
        return entries;
      });
    } catch (error) {
      // Rolled back: what the checkpointer learnt of the head inside the transaction is void.
      checkpointer.forget();
      if (error instanceof LedgerTamperError) this.recordTamper(error, prepared, link);
      throw error;
    }
    this.armIdleCheckpoint();
    return appended;
  }

  /**
   * Leaves a keyed trace of a refused checkpoint (once per process): the refusal itself must
   * not vanish with the rolled-back append. The entries are linked, never signed over.
   */
  private recordTamper(error: LedgerTamperError, refused: readonly NewEntry[], link: Parameters<AuditRepository['insertLinked']>[1]): void {
    if (this.tamperRecorded) return;
    this.tamperRecorded = true;
    try {
      const dataJson = normaliseData({ index: error.index, reason: error.message.slice(0, 2000), refused_events: refused.map((e) => e.event).slice(0, 20) }).json;
      this.repo.underWriteLock(() => this.repo.insertLinked([{ id: this.newId(), ts: this.now().toISOString(), event: 'audit.tamper_detected', dataJson }], link));
    } catch {
      // The refusal is still raised to the caller; a ledger we cannot write to says nothing more.
    }
  }

  private armIdleCheckpoint(): void {
    const delay = this.deps.idleCheckpointMs;
    if (delay === undefined || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      try {
        this.checkpointIfUnprotected();
      } catch (error) {
        this.deps.onCheckpointError?.(error);
      }
    }, delay);
    this.idleTimer.unref();
  }

  private checkpointIfUnprotected(): AuditCheckpoint | null {
    const { checkpointer } = this.requireKeys('write an audit checkpoint');
    return this.repo.underWriteLock(() => (checkpointer.unprotected() ? checkpointer.writeLocked() : null));
  }

  /** Forces a checkpoint over the current head (a no-op when the head is the latest checkpoint). */
  writeCheckpoint(): AuditCheckpoint | null {
    const { checkpointer } = this.requireKeys('write an audit checkpoint');
    try {
      return this.repo.underWriteLock(() => checkpointer.writeLocked());
    } catch (error) {
      if (error instanceof LedgerTamperError && this.deps.keys) {
        const keys = this.deps.keys;
        this.recordTamper(error, [], (prev, body) => linkHash(keys.chain, keys.keyedFrom, prev, body));
      }
      throw error;
    }
  }

  /**
   * Stops the idle timer and checkpoints what is unprotected, so a writer that exits leaves
   * nothing behind that could be edited or truncated unnoticed. Raises a tamper error instead
   * of signing over a broken chain.
   */
  close(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (!this.checkpointer) return;
    if (this.repo.underWriteLock(() => this.checkpointer!.unprotected())) this.writeCheckpoint();
  }

  verifyChain(progress?: WalkProgress): ChainVerification {
    return verifyWholeChain(this.repo, this.requireKeys('verify the audit ledger').keys, progress);
  }

  verifyFromCheckpoint(checkpointId?: string): ChainVerification {
    return verifyFromCheckpoint(this.repo, this.requireKeys('verify the audit ledger').keys, checkpointId);
  }

  /**
   * `total` is the chain's length read off its head: indexes are dense from 0 (each append takes
   * head + 1 under the write lock), so head + 1 counts the entries in O(1), where COUNT(*) walks
   * the whole index on every page. Rows deleted behind the chain's back are not subtracted:
   * verification reports them, and the listing shows the gap.
   */
  list(before: number | undefined, limit: number): AuditPage {
    const head = this.repo.head();
    return { entries: this.repo.page(before, limit).map(rowToEntry), total: head ? head.index + 1 : 0, head };
  }

  after(index: number, limit: number): AuditEntry[] {
    return this.repo.after(index, limit).map(rowToEntry);
  }

  tail(count: number): AuditEntry[] {
    return this.repo.page(undefined, count).map(rowToEntry).reverse();
  }

  /**
   * The entries up to the head as it was when reading began, in keyset pages: entries appended
   * meanwhile are left for the next read, and no statement stays open while the consumer waits
   * (an export blocked on a slow pipe would otherwise pin the connection and a WAL snapshot).
   */
  *since(isoTime?: string, pageSize = SINCE_PAGE_SIZE): Iterable<AuditEntry> {
    const head = this.repo.head();
    if (!head) return;
    let after = -1;
    for (;;) {
      const rows = this.repo.pageAfter(after, head.index, isoTime, pageSize);
      for (const row of rows) yield rowToEntry(row);
      if (rows.length < pageSize) return;
      after = rows.at(-1)!.idx;
    }
  }

  head(): ChainHead | null {
    return this.repo.head();
  }

  /**
   * Whether one stored row is as this ledger wrote it: its hash is the keyed link over its own
   * columns (index, id, time, event, data, previous hash) under the keyring's ledger key. A reader
   * that acts on a single entry without walking the chain asks this first, so a row planted or
   * edited by a process that can write the database but not read the keyring is not acted on
   * (docs/architecture.md §2 "Sealed state"). Rows from before the key (legacy, unkeyed) and a
   * process without the keys get false: nothing unauthenticated counts.
   */
  authenticRow(row: EntryRow): boolean {
    const keys = this.deps.keys;
    if (!keys || row.idx < keys.keyedFrom) return false;
    return linkHash(keys.chain, keys.keyedFrom, row.prev_hash, { index: row.idx, id: row.id, ts: row.ts, event: row.event, dataJson: row.data }) === row.hash;
  }
}
