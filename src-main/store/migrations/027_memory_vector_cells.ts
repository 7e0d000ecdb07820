/**
 * Cells of the semantic index (spec 002 §6.3; docs/silas/chronicle-and-memory.md "Semantic recall",
 * "Cells"). A brute-force search reads every vector of the scope, about 0.4 µs each: 40 ms at
 * 100,000 memories. Once a scope holds enough vectors, the runtime learns centroids from a sample
 * of them (k-means) and files each vector under its nearest centroid, a partition of the vec0 table;
 * a search then reads only the cells nearest the query and cell 0, where vectors wait until they are
 * filed (every vector of a scope not trained yet).
 *
 * `silas_memory_vector_cells` holds each trained scope's centroids; `silas_memory_vector_scopes`
 * how many of its vectors wait in cell 0 (the count that starts training) and when it was trained;
 * `silas_memory_embedded.cell` says where each memory's current vector is filed, so the filing
 * finds the waiting ones by an index rather than by reading every vector.
 *
 * Like the vectors, these are derived and not sealed: a planted centroid can only make a search
 * read other cells, and every hit is still read through its seal.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS silas_memory_vector_scopes (
  scope_id    TEXT PRIMARY KEY CHECK (length(scope_id) BETWEEN 1 AND 200),
  unassigned  INTEGER NOT NULL DEFAULT 0 CHECK (unassigned >= 0),
  cells       INTEGER NOT NULL DEFAULT 0 CHECK (cells BETWEEN 0 AND 4096),
  trained_on  INTEGER NOT NULL DEFAULT 0 CHECK (trained_on >= 0),
  trained_at  TEXT
);

CREATE TABLE IF NOT EXISTS silas_memory_vector_cells (
  scope_id  TEXT NOT NULL,
  cell      INTEGER NOT NULL CHECK (cell BETWEEN 1 AND 4096),
  centroid  BLOB NOT NULL,
  PRIMARY KEY (scope_id, cell)
);

ALTER TABLE silas_memory_embedded ADD COLUMN cell INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS silas_memory_embedded_waiting ON silas_memory_embedded(seq) WHERE cell = 0;
`;
