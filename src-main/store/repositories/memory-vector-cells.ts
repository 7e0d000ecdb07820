import type { SqliteConnection } from '../transaction.js';

/**
 * The cells of the semantic index (migration 027; docs/silas/chronicle-and-memory.md "Cells"): each
 * trained scope's centroids, kept in memory once read, and which cells a vector is filed under or a
 * search reads. Cell 0 is where a vector waits until its scope is trained and the vector is filed;
 * a search always reads it, so a vector is found whether filed or not.
 *
 * The vectors are unit length, so the nearest centroid by distance is the one with the largest dot
 * product, which is cheaper to compute.
 */

export interface CellLayout {
  /** The centroids one after another, `count` × `dimensions`. */
  centroids: Float32Array;
  count: number;
  dimensions: number;
}

export interface CellWork {
  scopeId: string;
  /** Vectors waiting in cell 0 (counted as they were stored: an estimate, never fewer). */
  unassigned: number;
  /** 0 until the scope is trained. */
  cells: number;
}

export class VectorCellStore {
  private readonly layouts = new Map<string, CellLayout | null>();
  private readonly statements;

  constructor(private readonly db: SqliteConnection) {
    this.statements = {
      layout: db.prepare('SELECT cell, centroid FROM silas_memory_vector_cells WHERE scope_id = ? ORDER BY cell'),
      work: db.prepare('SELECT scope_id AS scopeId, unassigned, cells FROM silas_memory_vector_scopes WHERE unassigned > 0 ORDER BY unassigned DESC LIMIT 20'),
      waited: db.prepare(
        'INSERT INTO silas_memory_vector_scopes (scope_id, unassigned) VALUES (?, 1) ON CONFLICT (scope_id) DO UPDATE SET unassigned = unassigned + 1',
      ),
      filed: db.prepare('UPDATE silas_memory_vector_scopes SET unassigned = max(0, unassigned - ?) WHERE scope_id = ?'),
      noneWaiting: db.prepare('UPDATE silas_memory_vector_scopes SET unassigned = 0 WHERE scope_id = ?'),
      clearCells: db.prepare('DELETE FROM silas_memory_vector_cells WHERE scope_id = ?'),
      insertCell: db.prepare('INSERT INTO silas_memory_vector_cells (scope_id, cell, centroid) VALUES (?, ?, ?)'),
      trained: db.prepare(
        `INSERT INTO silas_memory_vector_scopes (scope_id, cells, trained_on, trained_at) VALUES (@scope, @cells, @trainedOn, @at)
         ON CONFLICT (scope_id) DO UPDATE SET cells = excluded.cells, trained_on = excluded.trained_on, trained_at = excluded.trained_at`,
      ),
    };
  }

  /** The scope's centroids, or null while it is not trained (or its stored centroids do not fit `dimensions`). */
  layout(scopeId: string, dimensions: number): CellLayout | null {
    if (!this.layouts.has(scopeId)) {
      const rows = this.statements.layout.all(scopeId) as { cell: number; centroid: Buffer }[];
      this.layouts.set(scopeId, readLayout(rows, dimensions));
    }
    const layout = this.layouts.get(scopeId) ?? null;
    return layout && layout.dimensions === dimensions ? layout : null;
  }

  /** The cell a vector is filed under: its nearest centroid's, or 0 in a scope not trained yet. */
  cellFor(scopeId: string, vector: Float32Array): number {
    const layout = this.layout(scopeId, vector.length);
    return layout ? nearestCells(layout, vector, 1)[0]! : 0;
  }

  /** Counts a vector stored in cell 0 (within the caller's transaction). */
  waiting(scopeId: string): void {
    this.statements.waited.run(scopeId);
  }

  /** Counts filed vectors out of cell 0; with `none`, nothing is left there. */
  filed(scopeId: string, count: number, none: boolean): void {
    if (none) this.statements.noneWaiting.run(scopeId);
    else this.statements.filed.run(count, scopeId);
  }

  /** Scopes with vectors waiting in cell 0, most first. */
  work(): CellWork[] {
    return this.statements.work.all() as CellWork[];
  }

  /** Stores a scope's centroids (within the caller's transaction); vectors are filed under them from now on. */
  train(scopeId: string, centroids: readonly Float32Array[], trainedOn: number, at: string): void {
    this.statements.clearCells.run(scopeId);
    centroids.forEach((centroid, i) => this.statements.insertCell.run(scopeId, i + 1, Buffer.from(centroid.buffer, centroid.byteOffset, centroid.byteLength)));
    this.statements.trained.run({ scope: scopeId, cells: centroids.length, trainedOn, at });
    this.layouts.delete(scopeId);
  }

  /** Forgets every cached layout (the vector space was reset, or a transaction that trained rolled back). */
  forget(): void {
    this.layouts.clear();
  }
}

/** The `n` cells (1-based) whose centroids are nearest to `vector`, nearest first. */
export function nearestCells(layout: CellLayout, vector: Float32Array, n: number): number[] {
  const { centroids, count, dimensions } = layout;
  const take = Math.min(n, count);
  const best: { cell: number; dot: number }[] = [];
  for (let c = 0; c < count; c++) {
    let dot = 0;
    const offset = c * dimensions;
    for (let d = 0; d < dimensions; d++) dot += centroids[offset + d]! * vector[d]!;
    if (best.length < take || dot > best[best.length - 1]!.dot) {
      let at = best.length < take ? best.length : take - 1;
      if (best.length < take) best.push({ cell: 0, dot: 0 });
      while (at > 0 && best[at - 1]!.dot < dot) {
        best[at] = best[at - 1]!;
        at -= 1;
      }
      best[at] = { cell: c + 1, dot };
    }
  }
  return best.map((entry) => entry.cell);
}

function readLayout(rows: readonly { cell: number; centroid: Buffer }[], dimensions: number): CellLayout | null {
  if (rows.length === 0) return null;
  const centroids = new Float32Array(rows.length * dimensions);
  for (const [i, row] of rows.entries()) {
    // A centroid of another size, or cells not numbered 1..n, is not a layout to file under.
    if (row.cell !== i + 1 || row.centroid.byteLength !== dimensions * 4) return null;
    centroids.set(new Float32Array(row.centroid.buffer.slice(row.centroid.byteOffset, row.centroid.byteOffset + row.centroid.byteLength)), i * dimensions);
  }
  return { centroids, count: rows.length, dimensions };
}
