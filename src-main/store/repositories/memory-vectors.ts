import type { Statement } from 'better-sqlite3';
import { inImmediateTransaction, sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { vectorSupport } from '../vector-extension.js';
import { nearestCells, VectorCellStore, type CellWork } from './memory-vector-cells.js';

/**
 * The semantic index of Silas memory (spec 002 §6.1 "sqlite-vec … for vector similarity", §6.3;
 * docs/silas/chronicle-and-memory.md "Semantic recall"). One `vec0` table holds one vector per
 * active memory, partitioned by scope so a search reads only its own scope's vectors, in the one
 * vector space `silas_memory_vector_space` names. The raw lane is never embedded: it is reached
 * only by an explicit `search_raw` (§6.1), never by meaning.
 *
 * A vector is used only while `silas_memory_embedded` lists its memory (migration 025): a memory
 * whose content changed, or that was deleted, drops out of that list in the same statement, so a
 * stale vector is skipped until the background re-embedding writes a fresh one.
 *
 * Within a scope, vectors are filed in cells (migration 027, `memory-vector-cells.ts`): a search
 * reads the `PROBED_CELLS` cells nearest the query and cell 0, where vectors wait until their
 * scope is trained and they are filed, rather than every vector of the scope.
 */

export interface VectorSpace {
  /** The embedder's identity (`Embedder.id`): vectors of two embedders are never compared. */
  embedder: string;
  dimensions: number;
}

export interface PendingMemory {
  seq: number;
  memoryId: string;
  scopeId: string;
  content: string;
}

interface PendingRow {
  seq: number;
  memory_id: string;
  scope_id: string;
  content: string;
}

export interface VectorHit {
  seq: number;
  /** Cosine similarity, from -1 to 1 (the vectors are unit length). */
  similarity: number;
}

const VEC_TABLE = 'silas_memory_vectors';
/** The table before cells (migration 025's layout), dropped and re-embedded once. */
const UNCELLED_TABLE = 'silas_memory_vec';
/**
 * Cells a search reads besides cell 0: with 64 cells, an eighth of a trained scope. sqlite-vec
 * spends about 0.1 ms on each partition a query names besides the vectors it reads, so a few large
 * cells beat many small ones: at 100,000 memories 8 of 64 read in about 2 ms, 32 of 256 in about
 * 5 ms (random vectors, this machine), for the same share of the scope.
 */
const PROBED_CELLS = 8;
/** Pending memories counted at most (about a millisecond per thousand rows read). */
export const PENDING_COUNT_CAP = 10_000;
/** The most neighbours one search reads; over-fetched a little to skip stale vectors. */
const MAX_NEIGHBOURS = 400;

/**
 * The statements that find work (memories to embed, vectors to sample or file). Each must read by
 * key or from a mark, never the whole store: the background loop runs them on the event loop batch
 * after batch. Without statistics SQLite may lead a join with the memories and read them all, so
 * the joins are CROSS JOINs (SQLite keeps their order) led by the small or ordered side.
 */
export const WORK_SQL = {
  // The queue outside: led by the memories, every batch read all of them to find the few queued.
  pendingChanged: `SELECT m.seq, m.memory_id, m.scope_id, m.content FROM silas_memory_reembed q
    CROSS JOIN silas_memory_items m ON m.seq = q.seq WHERE m.reingestion_tier = 'active' ORDER BY q.seq LIMIT ?`,
  pendingFresh: `SELECT m.seq, m.memory_id, m.scope_id, m.content FROM silas_memory_items m
    WHERE m.seq > ? AND m.reingestion_tier = 'active' AND NOT EXISTS (SELECT 1 FROM silas_memory_embedded e WHERE e.seq = m.seq)
    ORDER BY m.seq LIMIT ?`,
  // The first active row past the mark without a vector bounds it; with none, the newest row does.
  advance: `UPDATE silas_memory_vector_space SET backfilled_to = coalesce(
      (SELECT m.seq - 1 FROM silas_memory_items m WHERE m.seq > backfilled_to AND m.reingestion_tier = 'active'
         AND NOT EXISTS (SELECT 1 FROM silas_memory_embedded e WHERE e.seq = m.seq) ORDER BY m.seq LIMIT 1),
      (SELECT max(seq) FROM silas_memory_items), backfilled_to) WHERE id = 1`,
  // The embedded list outside, from the sample's mark or through the index of waiting rows.
  embeddedOfScope: 'SELECT e.seq FROM silas_memory_embedded e CROSS JOIN silas_memory_items m ON m.seq = e.seq WHERE e.seq > ? AND m.scope_id = ? ORDER BY e.seq LIMIT ?',
  waitingOfScope:
    'SELECT e.seq FROM silas_memory_embedded e INDEXED BY silas_memory_embedded_waiting CROSS JOIN silas_memory_items m ON m.seq = e.seq WHERE e.cell = 0 AND m.scope_id = ? ORDER BY e.seq LIMIT ?',
} as const;

export class MemoryVectorIndex {
  private readonly db: SqliteConnection;
  private readonly cells: VectorCellStore;
  private space: VectorSpace | null = null;
  private statements: ReturnType<MemoryVectorIndex['prepareForSpace']> | null = null;

  constructor(database: SqliteDatabase, private readonly now: () => Date = () => new Date()) {
    this.db = sqliteConnection(database);
    this.cells = new VectorCellStore(this.db);
    const support = vectorSupport(database);
    if (!support.ok) throw new SilasError(ErrorCode.Database, `recall by meaning is not available: ${support.reason}`);
  }

  /**
   * Makes the index hold vectors of `space`. A different embedder or dimension than the stored one
   * drops every vector in one transaction (they are re-embedded in the background) and returns
   * `reset: true`; vectors of two spaces are never mixed.
   */
  useSpace(space: VectorSpace): { reset: boolean; previous: VectorSpace | null } {
    if (!Number.isSafeInteger(space.dimensions) || space.dimensions < 1 || space.dimensions > 8192) {
      throw new SilasError(ErrorCode.InvalidArgs, `embedder ${space.embedder} has ${String(space.dimensions)} dimensions; expected a whole number from 1 to 8192`);
    }
    const { reset, previous } = inImmediateTransaction(this.db, () => {
      const stored = (this.db.prepare('SELECT embedder, dimensions FROM silas_memory_vector_space WHERE id = 1').get() as VectorSpace | undefined) ?? null;
      const tableExists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(VEC_TABLE) !== undefined;
      if (stored && stored.embedder === space.embedder && stored.dimensions === space.dimensions && tableExists) return { reset: false, previous: stored };
      this.db.exec(`DROP TABLE IF EXISTS ${VEC_TABLE}`);
      this.db.exec(`DROP TABLE IF EXISTS ${UNCELLED_TABLE}`);
      this.db.exec(
        `CREATE VIRTUAL TABLE ${VEC_TABLE} USING vec0(scope_id TEXT PARTITION KEY, cell INTEGER PARTITION KEY, embedding float[${space.dimensions}] distance_metric=l2)`,
      );
      this.db.exec('DELETE FROM silas_memory_embedded');
      this.db.exec('DELETE FROM silas_memory_reembed');
      this.db.exec('DELETE FROM silas_memory_vector_cells');
      this.db.exec('DELETE FROM silas_memory_vector_scopes');
      this.db
        .prepare(
          'INSERT INTO silas_memory_vector_space (id, embedder, dimensions, backfilled_to, created_at) VALUES (1, ?, ?, 0, ?) ON CONFLICT (id) DO UPDATE SET embedder = excluded.embedder, dimensions = excluded.dimensions, backfilled_to = 0, created_at = excluded.created_at',
        )
        .run(space.embedder, space.dimensions, this.now().toISOString());
      return { reset: true, previous: stored };
    });
    this.cells.forget();
    this.space = { ...space };
    this.statements = this.prepareForSpace();
    return { reset, previous };
  }

  /**
   * Active memories whose current content has no vector yet: those whose content changed first,
   * then those past the backfill mark, oldest first. Each is found by its key or a row-number
   * range: the cost is the batch's, never the store's.
   */
  pending(limit: number): PendingMemory[] {
    const s = this.ready();
    const n = boundedLimit(limit);
    const changed = s.pendingChanged.all(n) as PendingRow[];
    const fresh = changed.length < n ? (s.pendingFresh.all(this.backfilledTo(), n - changed.length) as PendingRow[]) : [];
    const seen = new Set<number>();
    return [...changed, ...fresh]
      .filter((row) => !seen.has(row.seq) && seen.add(row.seq))
      .map((row) => ({ seq: row.seq, memoryId: row.memory_id, scopeId: row.scope_id, content: row.content }));
  }

  /**
   * How many wait, counted up to `PENDING_COUNT_CAP` past the backfill mark (a store of a million
   * memories just given a new embedder would otherwise cost a scan of every row on the event loop):
   * exact below the cap, "at least" at it.
   */
  pendingCount(): number {
    const s = this.ready();
    return (s.countChanged.get() as number) + (s.countFresh.get(this.backfilledTo()) as number);
  }

  /**
   * Stores vectors of memories whose content is still what was embedded (one transaction); a
   * memory changed or deleted meanwhile is skipped and stays pending. Returns how many were stored.
   */
  put(entries: readonly { seq: number; content: string; vector: Float32Array }[]): number {
    const s = this.ready();
    const dimensions = this.space!.dimensions;
    for (const entry of entries) {
      if (entry.vector.length !== dimensions) {
        throw new SilasError(ErrorCode.InvalidArgs, `a vector of ${entry.vector.length} dimensions cannot join a space of ${dimensions} (${this.space!.embedder})`);
      }
    }
    const at = this.now().toISOString();
    return inImmediateTransaction(this.db, () => {
      let stored = 0;
      for (const entry of entries) {
        const current = s.current.get(entry.seq) as { scope_id: string; content: string } | undefined;
        if (!current || current.content !== entry.content) continue;
        const cell = this.cells.cellFor(current.scope_id, entry.vector);
        s.deleteVector.run(BigInt(entry.seq));
        s.insertVector.run(BigInt(entry.seq), current.scope_id, BigInt(cell), Buffer.from(entry.vector.buffer, entry.vector.byteOffset, entry.vector.byteLength));
        s.markEmbedded.run(entry.seq, at, cell);
        if (cell === 0) this.cells.waiting(current.scope_id);
        s.unqueue.run(entry.seq);
        stored += 1;
      }
      // The mark moves past every row of the batch that is now done, never past one still waiting.
      s.advance.run();
      return stored;
    });
  }

  /**
   * The scope's active memories nearest to `vector`, most similar first; only current vectors
   * count. In a trained scope it reads the `probes` cells nearest the query (the bench compares counts).
   */
  nearest(scopeId: string, vector: Float32Array, limit: number, probes = PROBED_CELLS): VectorHit[] {
    const s = this.ready();
    if (vector.length !== this.space!.dimensions) {
      throw new SilasError(ErrorCode.InvalidArgs, `a query vector of ${vector.length} dimensions cannot search a space of ${this.space!.dimensions} (${this.space!.embedder})`);
    }
    const k = Math.min(MAX_NEIGHBOURS, boundedLimit(limit) * 2 + 8);
    const query = { vector: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), k, scope: scopeId };
    const layout = this.cells.layout(scopeId, vector.length);
    let rows: { seq: number; distance: number }[];
    // Not trained (every vector waits in cell 0), or centroids that do not read as a layout: every vector of the scope.
    if (!layout) rows = s.nearestInScope.all(query) as typeof rows;
    else {
      // k from each probed cell and from cell 0, merged: fewer than PROBED_CELLS cells repeat the last.
      if (!Number.isSafeInteger(probes) || probes < 1 || probes > 64) throw new SilasError(ErrorCode.InvalidArgs, `probes must be a whole number from 1 to 64, got ${String(probes)}`);
      const probed = nearestCells(layout, vector, probes);
      const cells = Object.fromEntries(Array.from({ length: probes }, (_, i) => [`c${i}`, BigInt(probed[Math.min(i, probed.length - 1)]!)]));
      const seen = new Set<number>();
      rows = (this.inCells(probes).all({ ...query, ...cells }) as typeof rows).filter((row) => !seen.has(Number(row.seq)) && seen.add(Number(row.seq)));
      rows.sort((a, b) => a.distance - b.distance);
    }
    // Unit vectors: squared L2 distance is 2 - 2·cos.
    return rows.slice(0, boundedLimit(limit)).map((row) => ({ seq: Number(row.seq), similarity: 1 - (row.distance * row.distance) / 2 }));
  }

  /** Scopes with vectors waiting in cell 0: to train (`cells` 0) or to file. */
  cellWork(): CellWork[] {
    this.ready();
    return this.cells.work();
  }

  /** Up to `limit` current vectors of the scope past `afterSeq`, in row order: the sample a scope's cells are learned from. */
  sample(scopeId: string, afterSeq: number, limit: number): { seq: number; vector: Float32Array }[] {
    const s = this.ready();
    const seqs = s.embeddedOfScope.all(afterSeq, scopeId, limit) as number[];
    return seqs.flatMap((seq) => {
      const blob = s.vectorOf.get(BigInt(seq)) as Buffer | undefined;
      return blob ? [{ seq, vector: toVector(blob) }] : [];
    });
  }

  /** Stores the scope's centroids (unit vectors of the space's dimension); vectors are filed under them from now on. */
  trainCells(scopeId: string, centroids: readonly Float32Array[], trainedOn: number): void {
    this.ready();
    const dimensions = this.space!.dimensions;
    if (centroids.length < 1 || centroids.length > 4096 || centroids.some((c) => c.length !== dimensions)) {
      throw new SilasError(ErrorCode.InvalidArgs, `cells must be 1 to 4096 centroids of ${dimensions} dimensions`);
    }
    try {
      inImmediateTransaction(this.db, () => this.cells.train(scopeId, centroids, trainedOn, this.now().toISOString()));
    } finally {
      this.cells.forget();
    }
  }

  /**
   * Files up to `limit` of the scope's waiting vectors under their nearest cells (one transaction),
   * stopping early once `budgetMs` has passed (moving a vector out of a large cell 0 costs sqlite-vec
   * up to a quarter of a millisecond); returns how many moved.
   */
  fileWaiting(scopeId: string, limit: number, budgetMs = Infinity): number {
    const s = this.ready();
    if (!this.cells.layout(scopeId, this.space!.dimensions)) return 0;
    return inImmediateTransaction(this.db, () => {
      const seqs = s.waitingOfScope.all(scopeId, limit) as number[];
      const started = performance.now();
      let moved = 0;
      for (const seq of seqs) {
        if (performance.now() - started > budgetMs) break;
        const blob = s.vectorOf.get(BigInt(seq)) as Buffer | undefined;
        if (!blob) continue;
        const cell = this.cells.cellFor(scopeId, toVector(blob));
        s.deleteVector.run(BigInt(seq));
        s.insertVector.run(BigInt(seq), scopeId, BigInt(cell), blob);
        s.fileEmbedded.run(cell, seq);
        moved += 1;
      }
      this.cells.filed(scopeId, moved, seqs.length < limit && moved === seqs.length);
      return moved;
    });
  }

  /** vec0 answers k per partition of an IN list: cell 0 and `probes` named cells. */
  private inCells(probes: number): Statement {
    const cache = this.ready().inCells;
    let statement = cache.get(probes);
    if (!statement) {
      statement = this.db.prepare(`SELECT knn.seq, knn.distance FROM (
          SELECT rowid AS seq, distance FROM ${VEC_TABLE} WHERE embedding MATCH @vector AND k = @k AND scope_id = @scope
            AND cell IN (0, ${Array.from({ length: probes }, (_, i) => `@c${i}`).join(', ')})
        ) knn WHERE EXISTS (SELECT 1 FROM silas_memory_embedded e WHERE e.seq = knn.seq)`);
      cache.set(probes, statement);
    }
    return statement;
  }

  private backfilledTo(): number {
    return (this.ready().backfilledTo.get() as number | undefined) ?? 0;
  }

  private ready(): NonNullable<MemoryVectorIndex['statements']> {
    if (!this.statements) throw new SilasError(ErrorCode.Internal, 'the memory vector index has no vector space yet (useSpace first)');
    return this.statements;
  }

  private prepareForSpace() {
    const db = this.db;
    return {
      backfilledTo: db.prepare('SELECT backfilled_to FROM silas_memory_vector_space WHERE id = 1').pluck(),
      pendingChanged: db.prepare(WORK_SQL.pendingChanged),
      pendingFresh: db.prepare(WORK_SQL.pendingFresh),
      countChanged: db.prepare('SELECT count(*) FROM silas_memory_reembed').pluck(),
      countFresh: db.prepare(`SELECT count(*) FROM (SELECT 1 FROM silas_memory_items m WHERE m.seq > ? AND m.reingestion_tier = 'active'
        AND NOT EXISTS (SELECT 1 FROM silas_memory_embedded e WHERE e.seq = m.seq) LIMIT ${PENDING_COUNT_CAP})`).pluck(),
      unqueue: db.prepare('DELETE FROM silas_memory_reembed WHERE seq = ?'),
      advance: db.prepare(WORK_SQL.advance),
      current: db.prepare("SELECT scope_id, content FROM silas_memory_items WHERE seq = ? AND reingestion_tier = 'active'"),
      deleteVector: db.prepare(`DELETE FROM ${VEC_TABLE} WHERE rowid = ?`),
      insertVector: db.prepare(`INSERT INTO ${VEC_TABLE} (rowid, scope_id, cell, embedding) VALUES (?, ?, ?, ?)`),
      markEmbedded: db.prepare(
        'INSERT INTO silas_memory_embedded (seq, embedded_at, cell) VALUES (?, ?, ?) ON CONFLICT (seq) DO UPDATE SET embedded_at = excluded.embedded_at, cell = excluded.cell',
      ),
      fileEmbedded: db.prepare('UPDATE silas_memory_embedded SET cell = ? WHERE seq = ?'),
      vectorOf: db.prepare(`SELECT embedding FROM ${VEC_TABLE} WHERE rowid = ?`).pluck(),
      embeddedOfScope: db.prepare(WORK_SQL.embeddedOfScope).pluck(),
      waitingOfScope: db.prepare(WORK_SQL.waitingOfScope).pluck(),
      // The k nearest first (vec0 plans a KNN only for a MATCH … AND k with partition constraints), then the stale ones dropped.
      nearestInScope: db.prepare(`SELECT knn.seq, knn.distance FROM (
          SELECT rowid AS seq, distance FROM ${VEC_TABLE} WHERE embedding MATCH @vector AND k = @k AND scope_id = @scope
        ) knn WHERE EXISTS (SELECT 1 FROM silas_memory_embedded e WHERE e.seq = knn.seq)
        ORDER BY knn.distance`),
      inCells: new Map<number, Statement>(),
    };
  }
}

function toVector(blob: Buffer): Float32Array {
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

function boundedLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_NEIGHBOURS) {
    throw new SilasError(ErrorCode.InvalidArgs, `the vector search limit must be a whole number from 0 to ${MAX_NEIGHBOURS}, got ${String(limit)}`);
  }
  return limit;
}
