import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';
import BetterSqlite from 'better-sqlite3';
import type { AuditCheckpoint, AuditEntry, ChainHead } from '../../../src-shared/schemas/audit.js';
import { GENESIS_HASH, type EntryBody } from '../../audit/chain.js';

/** Computes the hash that links an entry to its predecessor (keyed or legacy). */
export type LinkHash = (prevHash: string, body: EntryBody) => string;

export interface EntryRow {
  idx: number;
  id: string;
  ts: string;
  event: string;
  data: string;
  prev_hash: string;
  hash: string;
}

interface CheckpointRow {
  id: string;
  idx: number;
  hash: string;
  created_at: string;
  key_fingerprint: string;
  signature: string;
}

export interface NewEntry {
  id: string;
  ts: string;
  event: string;
  dataJson: string;
  /** The data `dataJson` encodes, already normalised (a fresh copy); parsed from the text when absent. */
  data?: AuditEntry['data'];
}

/** The columns of an `EntryRow`, in the order of `RawEntryRow`. */
const ROW_COLUMNS = 'idx, id, ts, event, data, prev_hash, hash';
type RawEntryRow = [idx: number, id: string, ts: string, event: string, data: string, prev_hash: string, hash: string];

/** Rows per INSERT statement: one statement per batch of a proxy's chunk instead of one per row. */
const ROWS_PER_INSERT = 16;
const INSERT_COLUMNS = 'INSERT INTO audit_entries (idx, id, ts, event, data, prev_hash, hash) VALUES ';

/** The audit chain aggregate: entries and their signed checkpoints. */
export class AuditRepository {
  private readonly headStmt;
  private readonly insertStmt;
  /** INSERT statements for 2…ROWS_PER_INSERT rows, prepared on first use. */
  private readonly insertRowsStmts = new Map<number, BetterSqlite.Statement>();
  private readonly pageStmt;
  private readonly pageBeforeStmt;
  private readonly afterStmt;
  private readonly pageAfterStmt;
  private readonly pageAfterSinceStmt;
  private readonly countStmt;
  private readonly latestCheckpointStmt;
  // Every checkpoint reads entries by index and inserts its row: prepared once, not per checkpoint.
  private readonly entryAtStmt;
  private readonly insertCheckpointStmt;
  private readonly writeTx;

  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    const db = sqliteConnection(database);
    this.db = db;
    this.headStmt = db.prepare('SELECT idx, hash FROM audit_entries ORDER BY idx DESC LIMIT 1');
    this.insertStmt = db.prepare(`${INSERT_COLUMNS}(?, ?, ?, ?, ?, ?, ?)`);
    this.pageStmt = db.prepare('SELECT * FROM audit_entries ORDER BY idx DESC LIMIT ?');
    this.pageBeforeStmt = db.prepare('SELECT * FROM audit_entries WHERE idx < ? ORDER BY idx DESC LIMIT ?');
    this.afterStmt = db.prepare('SELECT * FROM audit_entries WHERE idx > ? ORDER BY idx ASC LIMIT ?');
    // Raw rows (arrays) made into objects here: half the cost of better-sqlite3's own row objects,
    // and every checkpoint walks up to 1,000 entries through these pages (a proxy's cost per call).
    this.pageAfterStmt = db.prepare(`SELECT ${ROW_COLUMNS} FROM audit_entries WHERE idx > ? AND idx <= ? ORDER BY idx ASC LIMIT ?`).raw(true);
    this.pageAfterSinceStmt = db.prepare(`SELECT ${ROW_COLUMNS} FROM audit_entries WHERE idx > ? AND idx <= ? AND ts >= ? ORDER BY idx ASC LIMIT ?`).raw(true);
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM audit_entries');
    // Read on every append: MAX(idx) walks the idx index, where `ORDER BY idx DESC, created_at DESC`
    // scanned and sorted every checkpoint row (5.6 ms per append at 10,000 checkpoints, 10M entries).
    this.latestCheckpointStmt = db.prepare('SELECT * FROM audit_checkpoints WHERE idx = (SELECT MAX(idx) FROM audit_checkpoints) ORDER BY created_at DESC LIMIT 1');
    this.entryAtStmt = db.prepare('SELECT * FROM audit_entries WHERE idx = ?');
    this.insertCheckpointStmt = db.prepare('INSERT INTO audit_checkpoints (id, idx, hash, created_at, key_fingerprint, signature) VALUES (?, ?, ?, ?, ?, ?)');
    this.writeTx = db.transaction((fn: () => unknown) => fn());
  }

  /**
   * Runs `fn` in one `BEGIN IMMEDIATE` transaction: the head is read under the write lock, so
   * concurrent writers in other processes serialise instead of forking the chain, and a
   * checkpoint decided here cannot race another writer's. Inside a caller's transaction (a
   * consumed approval nonce) this runs as a savepoint of it.
   */
  underWriteLock<T>(fn: () => T): T {
    return this.writeTx.immediate(fn) as T;
  }

  /**
   * Inserts entries after the current head; call only under the write lock. `current` is that
   * head when the caller read it under the same lock (one query less per append), null for an
   * empty chain.
   */
  insertLinked(batch: readonly NewEntry[], link: LinkHash, current?: ChainHead | null): AuditEntry[] {
    const head = current === undefined ? this.head() : current;
    let index = head ? head.index + 1 : 0;
    let prevHash = head ? head.hash : GENESIS_HASH;
    const out: AuditEntry[] = [];
    const params: unknown[] = [];
    for (const item of batch) {
      const hash = link(prevHash, { index, id: item.id, ts: item.ts, event: item.event, dataJson: item.dataJson });
      params.push(index, item.id, item.ts, item.event, item.dataJson, prevHash, hash);
      if (params.length === ROWS_PER_INSERT * 7) this.insertRows(params);
      out.push({ index, id: item.id, ts: item.ts, event: item.event, data: item.data ?? (JSON.parse(item.dataJson) as AuditEntry['data']), prevHash, hash });
      prevHash = hash;
      index += 1;
    }
    if (params.length > 0) this.insertRows(params);
    return out;
  }

  /** Inserts the rows whose 7 columns each `params` holds, in one statement, and empties it. */
  private insertRows(params: unknown[]): void {
    const rows = params.length / 7;
    let stmt = rows === 1 ? this.insertStmt : this.insertRowsStmts.get(rows);
    if (stmt === undefined) {
      stmt = this.db.prepare(INSERT_COLUMNS + Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', '));
      this.insertRowsStmts.set(rows, stmt);
    }
    stmt.run(params);
    params.length = 0;
  }

  head(): ChainHead | null {
    const row = this.headStmt.get() as { idx: number; hash: string } | undefined;
    return row ? { index: row.idx, hash: row.hash } : null;
  }

  /** Counts every row: O(entries), for verification; listings use the head's index instead. */
  count(): number {
    return (this.countStmt.get() as { n: number }).n;
  }

  /** Newest first, strictly older than `before` when given. */
  page(before: number | undefined, limit: number): EntryRow[] {
    return (before === undefined ? this.pageStmt.all(limit) : this.pageBeforeStmt.all(before, limit)) as EntryRow[];
  }

  after(index: number, limit: number): EntryRow[] {
    return this.afterStmt.all(index, limit) as EntryRow[];
  }

  /**
   * Keyset page in chain order: up to `limit` rows with `after < idx <= upTo` (and `ts >= since`
   * when given). Each page is its own short read, so a slow reader of an export never holds a
   * statement or a WAL snapshot open between pages.
   */
  pageAfter(after: number, upTo: number, since: string | undefined, limit: number): EntryRow[] {
    const raw = (since === undefined ? this.pageAfterStmt.all(after, upTo, limit) : this.pageAfterSinceStmt.all(after, upTo, since, limit)) as RawEntryRow[];
    const rows: EntryRow[] = new Array<EntryRow>(raw.length);
    for (let i = 0; i < raw.length; i += 1) {
      const r = raw[i]!;
      rows[i] = { idx: r[0], id: r[1], ts: r[2], event: r[3], data: r[4], prev_hash: r[5], hash: r[6] };
    }
    return rows;
  }

  /** Rows `from..to` (inclusive) in chain order. */
  iterateRange(from: number, to: number): IterableIterator<EntryRow> {
    return this.db.prepare('SELECT * FROM audit_entries WHERE idx >= ? AND idx <= ? ORDER BY idx ASC').iterate(from, to) as IterableIterator<EntryRow>;
  }

  entryAt(index: number): EntryRow | null {
    return (this.entryAtStmt.get(index) as EntryRow | undefined) ?? null;
  }

  insertCheckpoint(cp: AuditCheckpoint): void {
    this.insertCheckpointStmt.run(cp.id, cp.index, cp.hash, cp.createdAt, cp.keyFingerprint, cp.signature);
  }

  checkpoints(): AuditCheckpoint[] {
    return (this.db.prepare('SELECT * FROM audit_checkpoints ORDER BY idx ASC, created_at ASC').all() as CheckpointRow[]).map(toCheckpoint);
  }

  checkpoint(id: string): AuditCheckpoint | null {
    const row = this.db.prepare('SELECT * FROM audit_checkpoints WHERE id = ?').get(id) as CheckpointRow | undefined;
    return row ? toCheckpoint(row) : null;
  }

  latestCheckpoint(): AuditCheckpoint | null {
    const row = this.latestCheckpointStmt.get() as CheckpointRow | undefined;
    return row ? toCheckpoint(row) : null;
  }

  /** Whether an entry with this id is committed: ids of a rolled-back batch are not. */
  hasEntry(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM audit_entries WHERE id = ?').get(id) !== undefined;
  }

  /** The newest `mcp.proxy_started` entry (or another event's) per server it names, for the Servers page. */
  latestStartPerServer(event: 'mcp.proxy_started' | 'mcp.proxy_start_reported' | 'mcp.proxy_start_failed' = 'mcp.proxy_started'): { server: string | null; idx: number }[] {
    return this.db
      .prepare(
        `SELECT json_extract(data, '$.server') AS server, MAX(idx) AS idx FROM audit_entries
         WHERE event = ? GROUP BY json_extract(data, '$.server')`,
      )
      .all(event) as { server: string | null; idx: number }[];
  }

  /** Newest first: up to `limit` entries of these events whose data names `server`. */
  serverEntries(server: string, events: readonly string[], limit: number): EntryRow[] {
    if (events.length === 0) return [];
    const placeholders = events.map(() => '?').join(', ');
    const sql = `SELECT * FROM audit_entries WHERE event IN (${placeholders}) AND json_extract(data, '$.server') = ? ORDER BY idx DESC LIMIT ?`;
    return this.db.prepare(sql).all(...events, server, limit) as EntryRow[];
  }

  /** The key the chain is keyed with and the first keyed index, or null before it is keyed. */
  chainState(): { keyId: string; keyedFrom: number } | null {
    const row = this.db.prepare('SELECT key_id, keyed_from FROM audit_chain_state WHERE id = 1').get() as { key_id: string; keyed_from: number } | undefined;
    return row ? { keyId: row.key_id, keyedFrom: row.keyed_from } : null;
  }

  /** Mirrors the keyring's ledger key into the database, so a home keyed once is never keyed afresh. */
  recordChainState(keyId: string, keyedFrom: number, keyedAt: string): void {
    this.db.prepare('INSERT OR REPLACE INTO audit_chain_state (id, key_id, keyed_from, keyed_at) VALUES (1, ?, ?, ?)').run(keyId, keyedFrom, keyedAt);
  }
}

/** A tampered row may hold anything; show it rather than fail the page (verification flags it). */
export function rowToEntry(row: EntryRow): AuditEntry {
  let data: AuditEntry['data'];
  try {
    const parsed: unknown = JSON.parse(row.data);
    data = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as AuditEntry['data']) : { unparseable: row.data };
  } catch {
    data = { unparseable: row.data };
  }
  return { index: row.idx, id: row.id, ts: row.ts, event: row.event, data, prevHash: row.prev_hash, hash: row.hash };
}

/**
 * A read-only connection of its own for a verifier in a worker thread: WAL lets it read while
 * the runtime writes, and `query_only` makes sure it never takes the write lock or changes a row.
 * The caller closes it (a terminated worker's connection closes with the thread).
 */
export function openAuditReader(file: string): { repo: AuditRepository; close(): void } {
  const db = new BetterSqlite(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma('query_only = ON');
  return { repo: new AuditRepository(db), close: () => db.close() };
}

function toCheckpoint(row: CheckpointRow): AuditCheckpoint {
  return { id: row.id, index: row.idx, hash: row.hash, createdAt: row.created_at, keyFingerprint: row.key_fingerprint, signature: row.signature };
}
