import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { ContextItem, ScopeId, type ContextItemInput } from '../../../src-shared/silas/context.js';
import { inImmediateTransaction, sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';
import type { MemorySealer } from './memory.js';

/** The most entries one read returns: §11's rehydration default is 50; this bounds a mistaken caller. */
export const MAX_CHRONICLE_READ = 10_000;
/** Rows one `pruneBefore` call deletes, so a retention sweep never holds the event loop (docs/architecture.md §1). */
const DEFAULT_PRUNE_BATCH = 1_000;

interface ChronicleRow {
  ctx_id: string;
  turn_number: number;
  kind: string;
  source: string;
  taint: string;
  content: string;
  token_count: number;
  relevance: number;
  masked: number;
  pinned: number;
  created_at: string;
  seal: string | null;
}

function scopeOf(scopeId: string): string {
  const parsed = ScopeId.safeParse(scopeId);
  if (!parsed.success) throw new SilasError(ErrorCode.InvalidArgs, `chronicle scope: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

function count(value: number, what: string, max: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new SilasError(ErrorCode.InvalidArgs, `${what} must be a whole number from 0 to ${max}, got ${String(value)}`);
  }
  return value;
}

/**
 * The chronicle store of spec 002 §4.14: each scope's conversation as the ContextItems the Stream
 * added to its chronicle zone (§5.1 steps 3 and 11), read back on restart (§5.1.3), and each
 * scope's turn counter (§5.1 step 16). Every statement names the scope, so no method reads or
 * changes another scope's rows. Items are validated on the way in and again on the way out: a
 * row edited outside Silas is refused rather than shown to a model as conversation.
 */
export class ChronicleRepository {
  private readonly insertStmt;
  private readonly touchScopeStmt;
  private readonly recentStmt;
  private readonly countStmt;
  private readonly scopesStmt;
  private readonly turnStmt;
  private readonly incrementStmt;
  private readonly pruneStmt;

  private readonly db: SqliteConnection;
  constructor(
    database: SqliteDatabase,
    private readonly sealer: MemorySealer,
    private readonly now: () => Date = () => new Date(),
  ) {
    const db = sqliteConnection(database);
    this.db = db;
    this.insertStmt = db.prepare(`INSERT INTO silas_chronicle
      (scope_id, ctx_id, turn_number, kind, source, taint, content, token_count, relevance, masked, pinned, created_at, seal)
      VALUES (@scope_id, @ctx_id, @turn_number, @kind, @source, @taint, @content, @token_count, @relevance, @masked, @pinned, @created_at, @seal)`);
    this.touchScopeStmt = db.prepare(`INSERT INTO silas_chronicle_scopes (scope_id, turn_counter, updated_at) VALUES (?, 0, ?)
      ON CONFLICT(scope_id) DO UPDATE SET updated_at = excluded.updated_at`);
    // The newest N by the (scope_id, seq) index, turned back into conversation order.
    this.recentStmt = db.prepare(`SELECT * FROM (SELECT ctx_id, turn_number, kind, source, taint, content, token_count, relevance, masked, pinned, created_at, seq, seal
      FROM silas_chronicle WHERE scope_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`);
    this.countStmt = db.prepare('SELECT count(*) FROM silas_chronicle WHERE scope_id = ?').pluck();
    this.scopesStmt = db.prepare('SELECT scope_id FROM silas_chronicle_scopes ORDER BY scope_id').pluck();
    this.turnStmt = db.prepare('SELECT turn_counter FROM silas_chronicle_scopes WHERE scope_id = ?').pluck();
    this.incrementStmt = db
      .prepare(`INSERT INTO silas_chronicle_scopes (scope_id, turn_counter, updated_at) VALUES (?, 1, ?)
        ON CONFLICT(scope_id) DO UPDATE SET turn_counter = turn_counter + 1, updated_at = excluded.updated_at RETURNING turn_counter`)
      .pluck();
    this.pruneStmt = db.prepare(`DELETE FROM silas_chronicle WHERE seq IN
      (SELECT seq FROM silas_chronicle WHERE created_at < ? ORDER BY created_at LIMIT ?)`);
  }

  /** §4.14 `append`: persists one chronicle item of `scopeId` and makes the scope known. */
  append(scopeId: string, item: ContextItemInput): void {
    this.appendMany(scopeId, [item]);
  }

  /** Several items (a message and the tool results of its turn) in one transaction: all or none. */
  appendMany(scopeId: string, items: readonly ContextItemInput[]): void {
    const scope = scopeOf(scopeId);
    const rows = items.map((item, index) => toRow(scope, item, index));
    if (rows.length === 0) return;
    inImmediateTransaction(this.db, () => {
      this.touchScopeStmt.run(scope, this.now().toISOString());
      for (const row of rows) {
        try {
          this.insertStmt.run({ ...row, seal: this.sealer.seal(chronicleSealId(scope, row.ctx_id as string), sealedFields(scope, row)) });
        } catch (error) {
          if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
            throw new SilasError(ErrorCode.InvalidArgs, `the chronicle of scope "${scope}" already holds ctx_id "${row.ctx_id}"; every item needs its own id`, { cause: error });
          }
          throw error;
        }
      }
    });
  }

  /** §4.14 `get_recent`: the newest `limit` items of the scope, oldest first (the order they were said in). */
  getRecent(scopeId: string, limit: number): ContextItem[] {
    const scope = scopeOf(scopeId);
    const rows = this.recentStmt.all(scope, count(limit, 'limit', MAX_CHRONICLE_READ)) as ChronicleRow[];
    return rows.map((row) => {
      const item = fromRow(scope, row);
      // An entry whose seal does not hold (raised in the database, or written before entries were
      // sealed) is what someone else wrote: external (spec 002 §5.12), never the owner's words.
      if (this.sealer.check(chronicleSealId(scope, row.ctx_id), sealedFields(scope, { ...row }), row.seal)) return item;
      return { ...item, taint: 'external' as const };
    });
  }

  count(scopeId: string): number {
    return this.countStmt.get(scopeOf(scopeId)) as number;
  }

  /** Every scope that has a chronicle or a turn counter: what §5.1.3 rehydrates. */
  scopes(): string[] {
    return this.scopesStmt.all() as string[];
  }

  /** The scope's turn counter: 0 before its first completed turn. */
  turnCounter(scopeId: string): number {
    return (this.turnStmt.get(scopeOf(scopeId)) as number | undefined) ?? 0;
  }

  /** §5.1 step 16. One statement, so two processes incrementing never lose a turn. Returns the new value. */
  incrementTurn(scopeId: string): number {
    return this.incrementStmt.get(scopeOf(scopeId), this.now().toISOString()) as number;
  }

  /**
   * §4.14 `prune_before`: deletes up to `maxRows` entries (of every scope) created before `cutoff`,
   * oldest first, and returns how many. Call it again while it returns `maxRows`. Turn counters stay.
   */
  pruneBefore(cutoff: Date, maxRows = DEFAULT_PRUNE_BATCH): number {
    if (Number.isNaN(cutoff.getTime())) throw new SilasError(ErrorCode.InvalidArgs, 'the prune cutoff is not a valid date');
    return this.pruneStmt.run(cutoff.toISOString(), count(maxRows, 'maxRows', Number.MAX_SAFE_INTEGER)).changes;
  }
}

/** A chronicle entry's sealed item id: scope and ctx_id as JSON, so neither can run into the other. */
const chronicleSealId = (scope: string, ctxId: string): string => JSON.stringify([scope, ctxId]);

/** What an entry's seal covers: who said what, with which taint (docs/architecture.md §2 "Sealed state"). */
function sealedFields(scope: string, row: Record<string, unknown>): unknown[] {
  return [scope, row.ctx_id, row.kind, row.source, row.taint, row.content];
}

function toRow(scope: string, input: ContextItemInput, index: number): Record<string, unknown> {
  const parsed = ContextItem.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SilasError(ErrorCode.InvalidArgs, `chronicle item ${index}: ${issue.path.join('.') || 'item'}: ${issue.message}`);
  }
  const item = parsed.data;
  if (item.zone !== 'chronicle') {
    throw new SilasError(ErrorCode.InvalidArgs, `chronicle item ${index} ("${item.ctx_id}") is in the ${item.zone} zone; only chronicle items are persisted here`);
  }
  return {
    scope_id: scope,
    ctx_id: item.ctx_id,
    turn_number: item.turn_number,
    kind: item.kind,
    source: item.source,
    taint: item.taint,
    content: item.content,
    token_count: item.token_count,
    relevance: item.relevance,
    masked: item.masked ? 1 : 0,
    pinned: item.pinned ? 1 : 0,
    // Millisecond ISO text sorts like time, which `pruneBefore` relies on.
    created_at: new Date(item.created_at).toISOString(),
  };
}

function fromRow(scope: string, row: ChronicleRow): ContextItem {
  const parsed = ContextItem.safeParse({
    ctx_id: row.ctx_id,
    zone: 'chronicle',
    content: row.content,
    token_count: row.token_count,
    created_at: row.created_at,
    turn_number: row.turn_number,
    source: row.source,
    taint: row.taint,
    kind: row.kind,
    relevance: row.relevance,
    masked: row.masked === 1,
    pinned: row.pinned === 1,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SilasError(
      ErrorCode.Database,
      `the chronicle of scope "${scope}" holds an entry (${row.ctx_id.slice(0, 80)}) that is not a valid context item (${issue.path.join('.')}: ${issue.message}); it was changed outside Silas, restore the database from a backup`,
    );
  }
  return parsed.data;
}
