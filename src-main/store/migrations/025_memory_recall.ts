/**
 * Recall by meaning (spec 002 §6.1–§6.3; docs/silas/chronicle-and-memory.md "Semantic recall").
 *
 * The vectors themselves live in a sqlite-vec `vec0` table that `store/repositories/memory-vectors.ts`
 * creates for the embedder in use, because a vec0 column has a fixed dimension and the dimension is
 * the embedder's: it is a derived index, dropped and rebuilt when the embedder changes, never data.
 * What is kept here is what makes that index trustworthy to read:
 *
 * `silas_memory_vector_space` names the one embedder (and its dimension) whose vectors the index
 * holds, so vectors of two embedders are never compared, and how far the background embedding has
 * come (`backfilled_to`: every active memory up to that row number was embedded once; newer rows
 * are the work, read by row number, so finding work never scans what is done). `silas_memory_embedded`
 * lists the memories whose current content has a vector in that space: a search keeps only hits
 * listed here, so a vector left behind by a deleted memory or by content that changed is never
 * used. The trigger drops a memory from the list when its content changes, whoever changes it, and
 * queues it in `silas_memory_reembed`.
 *
 * `silas_memory_promotions` holds the requests to verify a working memory (§3.8: `working` →
 * `verified` needs the owner's confirmation through a review card). A row is only a request: the
 * memory changes when the owner signs the card, whose signature the decision queue checks, so a
 * planted row gives a database writer a card to show, never a verified memory.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS silas_memory_vector_space (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  embedder       TEXT NOT NULL CHECK (length(embedder) BETWEEN 1 AND 300),
  dimensions     INTEGER NOT NULL CHECK (dimensions BETWEEN 1 AND 8192),
  backfilled_to  INTEGER NOT NULL DEFAULT 0 CHECK (backfilled_to >= 0),
  created_at     TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS silas_memory_embedded (
  seq          INTEGER PRIMARY KEY REFERENCES silas_memory_items(seq) ON DELETE CASCADE,
  embedded_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS silas_memory_reembed (
  seq  INTEGER PRIMARY KEY REFERENCES silas_memory_items(seq) ON DELETE CASCADE
);

CREATE TRIGGER IF NOT EXISTS silas_memory_embedded_stale AFTER UPDATE OF content ON silas_memory_items BEGIN
  DELETE FROM silas_memory_embedded WHERE seq = old.seq;
  INSERT OR IGNORE INTO silas_memory_reembed (seq) SELECT old.seq WHERE old.reingestion_tier = 'active';
END;

CREATE TABLE IF NOT EXISTS silas_memory_promotions (
  seq           INTEGER PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE CHECK (length(id) BETWEEN 1 AND 100),
  scope_id      TEXT NOT NULL CHECK (length(scope_id) BETWEEN 1 AND 200),
  memory_id     TEXT NOT NULL CHECK (length(memory_id) BETWEEN 1 AND 200),
  requested_by  TEXT NOT NULL CHECK (length(requested_by) BETWEEN 1 AND 200),
  reason        TEXT NOT NULL CHECK (length(reason) <= 1000),
  status        TEXT NOT NULL CHECK (status IN ('proposed', 'promoted', 'declined', 'withdrawn')),
  requested_at  TEXT NOT NULL,
  decided_at    TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS silas_memory_promotions_open ON silas_memory_promotions(scope_id, memory_id) WHERE status = 'proposed';

CREATE INDEX IF NOT EXISTS silas_memory_scope_tier ON silas_memory_items(scope_id, reingestion_tier, seq);
CREATE INDEX IF NOT EXISTS silas_memory_scope_trust ON silas_memory_items(scope_id, trust_level);
`;
