import type { Statement } from 'better-sqlite3';
import BetterSqlite from 'better-sqlite3';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { MemoryItem } from '../../../src-shared/silas/memory.js';
import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';
import { sealedFields, type MemorySealer } from './memory.js';

/*
 * The SQL of memory portability (spec 002 §4.2.3, §6.5; docs/silas/memory-portability.md): a
 * consistent, streamed read of what an export covers, and the writes of an import. Rows are read
 * through their seal, as `MemoryRepository` reads them, and written sealed with the same sealer,
 * so an export never launders a row planted in the database into a trusted one elsewhere, and
 * the runtime trusts what an import wrote (docs/architecture.md §2 "Sealed state"). Trust rules
 * are the caller's (silas/memory/portability.ts); nothing here decides what may be changed.
 */

/** Which memories an export or a replace covers: one scope or all (null), with or without the raw lane, changed since when. */
export interface MemoryCover {
  scope: string | null;
  includeRaw: boolean;
  since: string | null;
}

/** A row as stored, and whether its seal holds (a row whose seal fails is trusted as nothing). */
export interface StoredMemory {
  item: MemoryItem;
  sealed: boolean;
}

/** One export's read: the count and the rows come from one snapshot, whatever is written meanwhile. */
export interface MemorySnapshot {
  readonly count: number;
  /** The covered memories in the order they were stored, as the runtime would read them; once. */
  items(): Generator<MemoryItem>;
  /** Ends the read; idempotent. */
  close(): void;
}

const COLUMNS = `memory_id, scope_id, content, memory_type, reingestion_tier, trust_level, taint, source_kind, token_count, session_id,
  semantic_tags, entity_refs, causal_refs, temporal_prev, temporal_next, valid_from, valid_until, access_count, last_accessed, created_at, updated_at`;
const COVER = `(@scope IS NULL OR scope_id = @scope) AND (@raw = 1 OR reingestion_tier = 'active')
  AND (@since IS NULL OR julianday(updated_at) >= julianday(@since))`;
const JSON_FIELDS = ['semantic_tags', 'entity_refs', 'causal_refs'] as const;
const NOT_CLAIMED = 'memory_id NOT IN (SELECT memory_id FROM temp.silas_memory_import_ids)';

type Row = Record<string, unknown> & { seq?: number; seal: string | null };

export class MemoryBundleRepository {
  private readonly db: SqliteConnection;
  private readonly countStmt;
  private readonly rowsStmt;
  private readonly findStmt;
  private readonly upsertStmt;
  /** Prepared once the temporary table exists (beginImport), dropped with it. */
  private claimStmts: { insert: Statement<[string, number]>; line: Statement<[string]> } | null = null;

  constructor(
    database: SqliteDatabase,
    private readonly sealer: MemorySealer,
  ) {
    const db = sqliteConnection(database);
    this.db = db;
    this.countStmt = db.prepare(`SELECT count(*) FROM silas_memory_items WHERE ${COVER}`).pluck();
    this.rowsStmt = db.prepare(`SELECT seq, ${COLUMNS}, seal FROM silas_memory_items WHERE ${COVER} ORDER BY seq`);
    this.findStmt = db.prepare(`SELECT seq, ${COLUMNS}, seal FROM silas_memory_items WHERE memory_id = ?`);
    const columns = `${COLUMNS.replace(/\s+/g, ' ')}, seal`;
    const names = columns.split(', ');
    // An upsert in place keeps the row's seq, so what hangs off it (the vector index's list) stays attached.
    this.upsertStmt = db.prepare(`INSERT INTO silas_memory_items (${columns}) VALUES (${names.map((n) => `@${n}`).join(', ')})
      ON CONFLICT (memory_id) DO UPDATE SET ${names.filter((n) => n !== 'memory_id').map((n) => `${n} = excluded.${n}`).join(', ')}`);
  }

  /**
   * Opens a read transaction (unless the caller is already in one) so the count and the rows
   * agree; the rows are stepped through one at a time, never all loaded.
   */
  snapshot(cover: MemoryCover): MemorySnapshot {
    const params = coverParams(cover);
    const own = !this.db.inTransaction;
    if (own) this.db.exec('BEGIN');
    let open = true;
    const close = () => {
      if (!open) return;
      open = false;
      if (own && this.db.inTransaction) this.db.exec('COMMIT');
    };
    let count: number;
    try {
      count = this.countStmt.get(params) as number;
    } catch (error) {
      close();
      throw error;
    }
    const rows = this.rowsStmt;
    const read = (row: Row) => this.asRuntimeReads(row);
    return {
      count,
      *items() {
        for (const row of rows.iterate(params) as IterableIterator<Row>) yield read(row);
      },
      close,
    };
  }

  /** The memory stored under this id, in any scope (ids are unique across scopes), or null. */
  find(memoryId: string): StoredMemory | null {
    const row = this.findStmt.get(memoryId) as Row | undefined;
    if (!row) return null;
    const item = decode(row);
    return { item, sealed: this.sealer.check(item.memory_id, sealedFields(row), row.seal) };
  }

  /** Writes the item as it is (every field), sealed; an existing row with its id becomes this one. */
  upsert(item: MemoryItem): void {
    const row: Record<string, unknown> = { ...item };
    for (const field of JSON_FIELDS) row[field] = JSON.stringify(item[field]);
    row.seal = this.sealer.seal(item.memory_id, sealedFields(item));
    this.upsertStmt.run(row);
  }

  /** Starts the list of ids one import writes (a temporary table: it never reaches the file). */
  beginImport(): void {
    this.db.exec('CREATE TEMP TABLE IF NOT EXISTS silas_memory_import_ids (memory_id TEXT PRIMARY KEY, line INTEGER NOT NULL); DELETE FROM temp.silas_memory_import_ids;');
    this.claimStmts = {
      insert: this.db.prepare<[string, number]>('INSERT OR IGNORE INTO temp.silas_memory_import_ids (memory_id, line) VALUES (?, ?)'),
      line: this.db.prepare<[string]>('SELECT line FROM temp.silas_memory_import_ids WHERE memory_id = ?').pluck(),
    };
  }

  /** Records that the import holds `memoryId` (at `line`); the line that held it before, when it is a repeat. */
  claim(memoryId: string, line: number): number | null {
    if (!this.claimStmts) throw new SilasError(ErrorCode.Internal, 'claim() before beginImport()');
    if (this.claimStmts.insert.run(memoryId, line).changes === 1) return null;
    return this.claimStmts.line.get(memoryId) as number;
  }

  /** Memories of the cover the import does not hold whose seal holds and whose trust level is constitutional or verified. */
  protectedNotClaimed(cover: MemoryCover, limit: number): MemoryItem[] {
    const rows = this.db
      .prepare(`SELECT seq, ${COLUMNS}, seal FROM silas_memory_items WHERE ${COVER} AND trust_level IN ('constitutional', 'verified') AND ${NOT_CLAIMED} ORDER BY seq`)
      .all(coverParams(cover)) as Row[];
    const trusted: MemoryItem[] = [];
    for (const row of rows) {
      const stored = decode(row);
      if (this.sealer.check(stored.memory_id, sealedFields(row), row.seal)) trusted.push(stored);
      if (trusted.length >= limit) break;
    }
    return trusted;
  }

  /** Deletes the memories of the cover the import does not hold; how many. */
  removeNotClaimed(cover: MemoryCover): number {
    return this.db.prepare(`DELETE FROM silas_memory_items WHERE ${COVER} AND ${NOT_CLAIMED}`).run(coverParams(cover)).changes;
  }

  endImport(): void {
    this.claimStmts = null;
    this.db.exec('DROP TABLE IF EXISTS temp.silas_memory_import_ids');
  }

  /** As `MemoryRepository` reads a row: a seal that does not hold makes it external working memory (spec 002 §5.12). */
  private asRuntimeReads(row: Row): MemoryItem {
    const item = decode(row);
    if (this.sealer.check(item.memory_id, sealedFields(row), row.seal)) return item;
    return { ...item, taint: 'external', trust_level: 'working' };
  }
}

function coverParams(cover: MemoryCover) {
  return { scope: cover.scope, raw: cover.includeRaw ? 1 : 0, since: cover.since };
}

function decode(row: Row): MemoryItem {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(MemoryItem.shape)) fields[key] = row[key];
  try {
    for (const field of JSON_FIELDS) fields[field] = JSON.parse(row[field] as string);
  } catch {
    // Left as text: the parse below names the field.
  }
  const parsed = MemoryItem.safeParse(fields);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new SilasError(
    ErrorCode.Database,
    `memory row ${String(row.seq)} (${String(row.memory_id)}) is not a valid memory item (${issue.path.join('.')}: ${issue.message}); it was changed outside Silas, restore the database from a backup`,
  );
}

/**
 * A connection of its own for a cockpit export, which is read in pages across many calls: its
 * read transaction keeps one snapshot for the whole bundle (WAL lets the runtime write
 * meanwhile), and it is never the runtime's connection, whose writes would otherwise join it.
 * `query_only` makes sure it never takes the write lock. The caller closes it.
 */
export function openMemoryReader(file: string): SqliteDatabase {
  const db = new BetterSqlite(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('query_only = ON');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
