import { inImmediateTransaction, sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { ScopeId } from '../../../src-shared/silas/context.js';
import {
  MemoryChange,
  MemoryDraft,
  MemoryErrorCode,
  MemoryItem,
  lowerTaint,
  type ReingestionTier,
} from '../../../src-shared/silas/memory.js';
import { anyOf, chooseTerms, queryWords } from './fts-query.js';
import { MemoryTermStats } from './memory-terms.js';

/** The most hits one search returns (`MemoryQuery.max_results` is at most 100). */
export const MAX_MEMORY_SEARCH = 100;

export interface MemoryHit {
  item: MemoryItem;
  /**
   * FTS5's bm25 of the hit, lower is better; null for a hit that matched only words too common to
   * rank (see `search`), which comes after the ranked ones, newest first.
   */
  bm25: number | null;
  /** The ranking mapped into (0, 1), higher is better: what §3.5 `relevance` holds; 0 when unranked. */
  relevance: number;
}

export interface MemorySearchOptions {
  limit: number;
  /** One lane only; both when left out. Automatic recall reads only `active` (§6.1: the raw lane is never auto-injected). */
  tier?: ReingestionTier;
}

/**
 * Seals what decides how far a memory is trusted with a keyring-held key (docs/architecture.md §2
 * "Sealed state"); the repository sees only this shape. `check` reports a failed seal itself.
 */
export interface MemorySealer {
  seal(memoryId: string, fields: readonly unknown[]): string;
  check(memoryId: string, fields: readonly unknown[], seal: string | null): boolean;
}

/** The fields a memory's seal covers: everything that decides where it goes and how far it is trusted. */
export function sealedFields(row: Record<string, unknown>): unknown[] {
  return [row.scope_id, row.content, row.memory_type, row.reingestion_tier, row.trust_level, row.taint, row.source_kind];
}

export interface MemoryListFilter {
  limit: number;
  tier?: ReingestionTier;
  types?: readonly string[];
  trust?: readonly string[];
  taints?: readonly string[];
  since?: Date | null;
  until?: Date | null;
}

/** §3.8/§5.12: verified memories change only by the owner's action, and only the Stream knows of one. */
export interface ProtectedWrite {
  ownerConfirmed?: boolean;
  /**
   * Writes the owner's constitution: only the import of the owner's own bundle and the
   * configuration do (never a memory operation, a cockpit edit or the consolidator).
   */
  constitution?: boolean;
}

export interface MemoryRepositoryOptions {
  now?: () => Date;
  newId?: () => string;
}

type Row = Record<string, unknown> & { seq: number };
type ScoredRow = Row & { score: number | null };
const COLUMNS = `seq, memory_id, scope_id, content, memory_type, reingestion_tier, trust_level, taint, source_kind, token_count, session_id,
  semantic_tags, entity_refs, causal_refs, temporal_prev, temporal_next, valid_from, valid_until, access_count, last_accessed, created_at, updated_at, seal`;
/** Postings one search may rank (about a microsecond each): a couple of milliseconds, whatever the store's size. */
export const SEARCH_POSTING_BUDGET = 2_000;

const LANES = { any: '', active: "AND m.reingestion_tier = 'active'", low_reingestion: "AND m.reingestion_tier = 'low_reingestion'" };
const MATCHES = (score: string, lane: string) => `SELECT ${COLUMNS.replace(/(\w+)/g, 'm.$1')}, ${score} AS score
  FROM silas_memory_fts JOIN silas_memory_items m ON m.seq = silas_memory_fts.rowid
  WHERE silas_memory_fts MATCH @match AND m.scope_id = @scope ${lane}`;
// Best bm25 first, newest first among equals.
const RANKED = (lane: string) => `${MATCHES('bm25(silas_memory_fts)', lane)} ORDER BY score, m.seq DESC LIMIT @limit`;
// No bm25 (its IDF would scan every posting of a common word): FTS5 walks its doclists newest first and stops.
const RECENT = (lane: string) => `${MATCHES('NULL', lane)} ORDER BY silas_memory_fts.rowid DESC LIMIT @limit`;

/**
 * The memory store of spec 002 §4.2/§6.1 for one turn's needs: the raw lane of §5.1 steps 3.5 and
 * 11.5, FTS5 keyword recall (step 4, step 9, the `memory_search` tool), and the store, update and
 * delete of a MemoryOp (step 10) as plain methods: the Stream runs the gates before calling them.
 * Every statement binds the scope, so nothing here reads or changes another scope's memories, and
 * a memory id from another scope behaves exactly like one that does not exist.
 */
export class MemoryRepository {
  private readonly now: () => Date;
  private readonly newId: () => string;
  private readonly insertStmt;
  private readonly getStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly accessStmt;
  private readonly countStmt;
  private readonly bySeqStmt;
  private readonly windowStmts;
  private readonly sessionStmts;
  private readonly linkStmt;
  private readonly trustStmt;
  private readonly searchStmts;
  private readonly terms;

  private readonly db: SqliteConnection;
  constructor(
    database: SqliteDatabase,
    private readonly sealer: MemorySealer,
    options: MemoryRepositoryOptions = {},
  ) {
    const db = sqliteConnection(database);
    this.db = db;
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? randomUUID;
    this.insertStmt = db.prepare(`INSERT INTO silas_memory_items
      (memory_id, scope_id, content, memory_type, reingestion_tier, trust_level, taint, source_kind, token_count, session_id,
       semantic_tags, entity_refs, valid_from, valid_until, created_at, updated_at, seal)
      VALUES (@memory_id, @scope_id, @content, @memory_type, @reingestion_tier, @trust_level, @taint, @source_kind, @token_count, @session_id,
       @semantic_tags, @entity_refs, @valid_from, @valid_until, @created_at, @created_at, @seal)`);
    this.getStmt = db.prepare(`SELECT ${COLUMNS} FROM silas_memory_items WHERE scope_id = ? AND memory_id = ?`);
    this.updateStmt = db.prepare(`UPDATE silas_memory_items SET content = @content, token_count = @token_count, taint = @taint,
      memory_type = @memory_type, semantic_tags = @semantic_tags, entity_refs = @entity_refs, updated_at = @updated_at, seal = @seal
      WHERE scope_id = @scope_id AND memory_id = @memory_id`);
    this.deleteStmt = db.prepare('DELETE FROM silas_memory_items WHERE scope_id = ? AND memory_id = ?');
    this.accessStmt = db.prepare('UPDATE silas_memory_items SET access_count = access_count + 1, last_accessed = ? WHERE scope_id = ? AND memory_id = ?');
    this.countStmt = db.prepare('SELECT count(*) FROM silas_memory_items WHERE scope_id = @scope AND (@tier IS NULL OR reingestion_tier = @tier)').pluck();
    this.bySeqStmt = db.prepare(`SELECT ${COLUMNS} FROM silas_memory_items WHERE seq = ? AND scope_id = ?`);
    const window = (lane: string) => db.prepare(`SELECT ${COLUMNS} FROM silas_memory_items m WHERE m.scope_id = @scope ${lane} AND m.created_at >= @from AND m.created_at < @to ORDER BY m.created_at DESC, m.seq DESC LIMIT @limit`);
    this.windowStmts = { any: window(LANES.any), active: window(LANES.active), low_reingestion: window(LANES.low_reingestion) };
    const session = (lane: string) => db.prepare(`SELECT ${COLUMNS} FROM silas_memory_items m WHERE m.scope_id = @scope AND m.session_id = @session ${lane} ORDER BY m.seq DESC LIMIT @limit`);
    this.sessionStmts = { any: session(LANES.any), active: session(LANES.active), low_reingestion: session(LANES.low_reingestion) };
    this.trustStmt = db.prepare('UPDATE silas_memory_items SET trust_level = @trust_level, updated_at = @updated_at, seal = @seal WHERE scope_id = @scope_id AND memory_id = @memory_id');
    this.linkStmt = db.prepare('UPDATE silas_memory_items SET causal_refs = @causal_refs, updated_at = @updated_at WHERE scope_id = @scope_id AND memory_id = @memory_id');
    const both = (lane: string) => ({ ranked: db.prepare(RANKED(lane)), recent: db.prepare(RECENT(lane)) });
    this.searchStmts = { any: both(LANES.any), active: both(LANES.active), low_reingestion: both(LANES.low_reingestion) };
    this.terms = new MemoryTermStats(db);
  }

  /** §4.2 `store_raw` for several records (a response and its tool outputs) in one transaction; returns their ids. */
  ingestRaw(scopeId: string, drafts: readonly MemoryDraft[]): string[] {
    return this.insert(scopeOf(scopeId), 'low_reingestion', drafts, {});
  }

  /** §4.2 `store` into the active lane (a MemoryOp `store`); returns the new id. */
  store(scopeId: string, draft: MemoryDraft, options: ProtectedWrite = {}): string {
    return this.insert(scopeOf(scopeId), 'active', [draft], options)[0]!;
  }

  get(scopeId: string, memoryId: string): MemoryItem | null {
    const row = this.getStmt.get(scopeOf(scopeId), memoryId) as Row | undefined;
    return row ? this.fromRow(row) : null;
  }

  /**
   * A MemoryOp `update`: null when the scope holds no such memory. The item's taint becomes the
   * lower of its own and the writer's (§5.12).
   */
  update(scopeId: string, memoryId: string, change: MemoryChange, options: ProtectedWrite = {}): MemoryItem | null {
    const scope = scopeOf(scopeId);
    const next = parse(MemoryChange, change, 'memory change');
    return inImmediateTransaction(this.db, () => {
      const current = this.get(scope, memoryId);
      if (!current) return null;
      assertModifiable(current, options);
      const changed = {
        scope_id: scope,
        memory_id: memoryId,
        content: next.content,
        token_count: next.token_count,
        taint: lowerTaint(current.taint, next.taint),
        memory_type: next.memory_type ?? current.memory_type,
        semantic_tags: JSON.stringify(next.semantic_tags ?? current.semantic_tags),
        entity_refs: JSON.stringify(next.entity_refs ?? current.entity_refs),
        updated_at: this.now().toISOString(),
      };
      const fields = sealedFields({ ...current, ...changed });
      this.updateStmt.run({ ...changed, seal: this.sealer.seal(memoryId, fields) });
      return this.get(scope, memoryId);
    });
  }

  /** A MemoryOp `delete`: false when the scope holds no such memory. */
  delete(scopeId: string, memoryId: string, options: ProtectedWrite = {}): boolean {
    const scope = scopeOf(scopeId);
    return inImmediateTransaction(this.db, () => {
      const current = this.get(scope, memoryId);
      if (!current) return false;
      assertModifiable(current, options);
      return this.deleteStmt.run(scope, memoryId).changes === 1;
    });
  }

  /**
   * §4.2 `search_keyword`/`search_raw`: memories of the scope holding words of `query`, best bm25
   * first, newest first among equals. `query` is untrusted text and contributes no FTS5 syntax.
   * Words that would cost more than they rank are not ranked (`chooseTerms`), so a whole message
   * can be the query: its "the" and "we" are not read from every memory. When the ranked words
   * find fewer than `limit`, the scope's newest memories holding any word of the query follow,
   * unranked.
   */
  search(scopeId: string, query: string, options: MemorySearchOptions): MemoryHit[] {
    const scope = scopeOf(scopeId);
    const limit = searchLimit(options.limit);
    if (typeof query !== 'string') throw invalid('the search query must be text');
    const words = queryWords(query);
    if (words.length === 0 || limit === 0) return [];
    const totalDocs = this.terms.totalDocs();
    const plan = chooseTerms(this.terms.stats(words, totalDocs), totalDocs, SEARCH_POSTING_BUDGET);
    if (plan === null) return [];
    const statements = this.searchStmts[options.tier ?? 'any'];
    let rows = plan.ranked.length > 0 ? (statements.ranked.all({ match: anyOf(plan.ranked), scope, limit }) as ScoredRow[]) : [];
    if (plan.recent && rows.length < limit) {
      const seen = new Set(rows.map((row) => row.seq));
      const recent = statements.recent.all({ match: anyOf(plan.recent), scope, limit }) as ScoredRow[];
      rows = [...rows, ...recent.filter((row) => !seen.has(row.seq))].slice(0, limit);
    }
    return rows.map((row) => ({ item: this.fromRow(row), bm25: row.score, relevance: row.score === null ? 0 : relevance(row.score) }));
  }

  /** Items of the scope by row number (the vector index's ids); a row of another scope, or gone, is left out. */
  bySeqs(scopeId: string, seqs: readonly number[]): Map<number, MemoryItem> {
    const scope = scopeOf(scopeId);
    const items = new Map<number, MemoryItem>();
    for (const seq of seqs) {
      const row = this.bySeqStmt.get(seq, scope) as Row | undefined;
      if (row) items.set(seq, this.fromRow(row));
    }
    return items;
  }

  /**
   * §6.3 temporal retrieval: the scope's memories created in [from, to), newest first. Times are
   * stored as millisecond ISO text, which sorts as time, so the `(scope_id, created_at)` index answers it.
   */
  createdBetween(scopeId: string, window: { from: Date; to: Date }, options: MemorySearchOptions): MemoryItem[] {
    const rows = this.windowStmts[options.tier ?? 'any'].all({ scope: scopeOf(scopeId), from: window.from.toISOString(), to: window.to.toISOString(), limit: searchLimit(options.limit) }) as Row[];
    return rows.map((row) => this.fromRow(row));
  }

  /**
   * The scope's memories matching every filter given, newest first (the Memory page's listing).
   * Filters are bound parameters of fixed SQL fragments; an empty list means "any".
   */
  list(scopeId: string, filter: MemoryListFilter): MemoryItem[] {
    const params: Record<string, unknown> = { scope: scopeOf(scopeId), limit: searchLimit(filter.limit) };
    const where = ['m.scope_id = @scope'];
    if (filter.tier) {
      where.push('m.reingestion_tier = @tier');
      params.tier = filter.tier;
    }
    const inList = (column: string, name: string, values: readonly string[] | undefined) => {
      if (!values || values.length === 0) return;
      where.push(`m.${column} IN (${values.map((_, i) => `@${name}${i}`).join(', ')})`);
      values.forEach((value, i) => (params[`${name}${i}`] = value));
    };
    inList('memory_type', 'type', filter.types);
    inList('trust_level', 'trust', filter.trust);
    inList('taint', 'taint', filter.taints);
    if (filter.since) {
      where.push('m.created_at >= @since');
      params.since = filter.since.toISOString();
    }
    if (filter.until) {
      where.push('m.created_at < @until');
      params.until = filter.until.toISOString();
    }
    const rows = this.db.prepare(`SELECT ${COLUMNS} FROM silas_memory_items m WHERE ${where.join(' AND ')} ORDER BY m.created_at DESC, m.seq DESC LIMIT @limit`).all(params) as Row[];
    return rows.map((row) => this.fromRow(row));
  }

  /** §4.2 `search_session`: the memories a session (a conversation) created, newest first. */
  searchSession(scopeId: string, sessionId: string, options: MemorySearchOptions): MemoryItem[] {
    if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > 200) throw invalid('a session id is text of 1 to 200 characters');
    const rows = this.sessionStmts[options.tier ?? 'any'].all({ scope: scopeOf(scopeId), session: sessionId, limit: searchLimit(options.limit) }) as Row[];
    return rows.map((row) => this.fromRow(row));
  }

  /**
   * A MemoryOp `link` (§3.2, §3.8 `causal_refs`): records that `memoryId` is causally related to
   * `linkTo`. Both must be memories of the scope; linking changes the memory, so the trust rules of
   * `update` hold. Null when either is unknown here.
   */
  link(scopeId: string, memoryId: string, linkTo: string, options: ProtectedWrite = {}): MemoryItem | null {
    const scope = scopeOf(scopeId);
    if (memoryId === linkTo) throw invalid(`memory ${memoryId} cannot be linked to itself`);
    return inImmediateTransaction(this.db, () => {
      const current = this.get(scope, memoryId);
      if (!current || !this.get(scope, linkTo)) return null;
      assertModifiable(current, options);
      if (current.causal_refs.includes(linkTo)) return current;
      if (current.causal_refs.length >= 100) throw invalid(`memory ${memoryId} already has 100 causal links, the most one memory holds`);
      this.linkStmt.run({ scope_id: scope, memory_id: memoryId, causal_refs: JSON.stringify([...current.causal_refs, linkTo]), updated_at: this.now().toISOString() });
      return this.get(scope, memoryId);
    });
  }

  /**
   * §3.8: a working memory becomes verified only by the owner's confirmation, which only a signed
   * review card gives (review/kinds/memory-promotion.ts); refused without it, and never for a
   * constitutional memory. Null when the scope holds no such memory.
   */
  promote(scopeId: string, memoryId: string, options: ProtectedWrite): MemoryItem | null {
    const scope = scopeOf(scopeId);
    if (!options.ownerConfirmed) throw protectedError(`memory ${memoryId} becomes verified only when the owner signs its promotion in Review (§3.8)`);
    return inImmediateTransaction(this.db, () => {
      const current = this.get(scope, memoryId);
      if (!current) return null;
      if (current.trust_level === 'constitutional') throw protectedError(`memory ${memoryId} is constitutional and cannot be changed at runtime (§3.8)`);
      if (current.trust_level === 'verified') return current;
      const changed = { scope_id: scope, memory_id: memoryId, trust_level: 'verified', updated_at: this.now().toISOString() };
      this.trustStmt.run({ ...changed, seal: this.sealer.seal(memoryId, sealedFields({ ...current, ...changed })) });
      return this.get(scope, memoryId);
    });
  }

  /** Counts a retrieval of these memories (§3.8 `access_count`, `last_accessed`); ids of other scopes change nothing. */
  recordAccess(scopeId: string, memoryIds: readonly string[]): void {
    const scope = scopeOf(scopeId);
    const at = this.now().toISOString();
    inImmediateTransaction(this.db, () => {
      for (const id of memoryIds) this.accessStmt.run(at, scope, id);
    });
  }

  /** How many of the scope's memories hold each trust level (as stored; the Memory page's summary). */
  countByTrust(scopeId: string): Record<'working' | 'verified' | 'constitutional', number> {
    const rows = this.db.prepare('SELECT trust_level, count(*) AS n FROM silas_memory_items WHERE scope_id = ? GROUP BY trust_level').all(scopeOf(scopeId)) as { trust_level: string; n: number }[];
    const counts = { working: 0, verified: 0, constitutional: 0 };
    for (const row of rows) if (row.trust_level in counts) counts[row.trust_level as keyof typeof counts] = row.n;
    return counts;
  }

  count(scopeId: string, tier?: ReingestionTier): number {
    return this.countStmt.get({ scope: scopeOf(scopeId), tier: tier ?? null }) as number;
  }

  private insert(scope: string, tier: ReingestionTier, drafts: readonly MemoryDraft[], options: ProtectedWrite): string[] {
    const rows = drafts.map((draft, index) => {
      const item = parse(MemoryDraft, draft, `memory ${index}`);
      if (item.trust_level === 'constitutional' && (!options.constitution || item.taint === 'external')) {
        throw protectedError(`memory ${index}: constitutional memory is never created at runtime (§3.8); it comes only with the owner's own bundle (silas memory import)`);
      }
      if (item.trust_level === 'verified' && !options.ownerConfirmed) {
        throw protectedError(`memory ${index}: memory becomes verified only with the owner's confirmation, a promotion signed in Review (§3.8, §5.12)`);
      }
      return { ...item, semantic_tags: JSON.stringify(item.semantic_tags), entity_refs: JSON.stringify(item.entity_refs) };
    });
    const createdAt = this.now().toISOString();
    return inImmediateTransaction(this.db, () =>
      rows.map((row) => {
        const memoryId = this.newId();
        const stored = { ...row, memory_id: memoryId, scope_id: scope, reingestion_tier: tier, created_at: createdAt };
        this.insertStmt.run({ ...stored, seal: this.sealer.seal(memoryId, sealedFields(stored)) });
        return memoryId;
      }),
    );
  }

  /**
   * A stored row as a memory item. A row whose seal does not hold (planted or rewritten in the
   * database, or written before memories were sealed) is read as external working memory: it
   * can still be recalled, but never as the owner's words or as trusted memory (spec 002 §5.12).
   */
  private fromRow(row: Row): MemoryItem {
    const item = fromRow(row);
    if (this.sealer.check(item.memory_id, sealedFields(row), (row.seal as string | null) ?? null)) return item;
    return { ...item, taint: 'external', trust_level: 'working' };
  }
}

function assertModifiable(item: MemoryItem, options: ProtectedWrite): void {
  if (item.trust_level === 'constitutional') throw protectedError(`memory ${item.memory_id} is constitutional and cannot be changed at runtime (§3.8)`);
  if (item.trust_level === 'verified' && !options.ownerConfirmed) {
    throw protectedError(`memory ${item.memory_id} is verified; changing it needs the owner's confirmation (§3.8)`);
  }
}

/** bm25 is negative for a match, more negative the better; -bm25/(1-bm25) keeps the order in (0, 1). */
function relevance(bm25: number): number {
  const score = Math.max(0, -bm25);
  return score / (1 + score);
}

const JSON_FIELDS = new Set(['semantic_tags', 'entity_refs', 'causal_refs']);

function fromRow(row: Row): MemoryItem {
  const fields = Object.fromEntries(Object.keys(MemoryItem.shape).map((key) => [key, JSON_FIELDS.has(key) ? JSON.parse(row[key] as string) : row[key]]));
  const parsed = MemoryItem.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SilasError(
      ErrorCode.Database,
      `memory row ${row.seq} is not a valid memory item (${issue.path.join('.')}: ${issue.message}); it was changed outside Silas, restore the database from a backup`,
    );
  }
  return parsed.data;
}

function searchLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_MEMORY_SEARCH) {
    throw invalid(`the search limit must be a whole number from 0 to ${MAX_MEMORY_SEARCH}, got ${String(limit)}`);
  }
  return limit;
}

function scopeOf(scopeId: string): string {
  const parsed = ScopeId.safeParse(scopeId);
  if (!parsed.success) throw invalid(`memory scope: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalid(`${what}: ${issue.path.join('.') || 'value'}: ${issue.message}`);
}

const invalid = (message: string) => new SilasError(ErrorCode.InvalidArgs, message);
const protectedError = (message: string) => new SilasError(MemoryErrorCode.Protected, message);
