/**
 * The persistence a Stream turn needs (spec 002 §4.14, §5.1 steps 3, 3.5, 4, 9–11.5, 16, §5.1.3,
 * §6.1; docs/silas/chronicle-and-memory.md).
 *
 * `silas_chronicle` holds the conversation of each scope (`"owner"`, or a connection id) as the
 * §3.5 ContextItems the Stream added, so a restart continues the same conversation. Entries are
 * ordered by `seq`, not by `created_at`: a clock stepping back must not reorder a conversation,
 * and a new row always gets a higher `seq` than every row left. `silas_chronicle_scopes` is the
 * list of known scopes and each one's turn counter (§5.1 step 16).
 *
 * `silas_memory_items` holds §3.8 MemoryItems of both lanes with their scope. The FTS5 index is an
 * external-content table over `content` and `semantic_tags` with the tokenizer §6.1 names, kept
 * in step by triggers; an access-count update does not touch it. Vector columns and the
 * entity/causal indexes come with the retrieval that uses them.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS silas_chronicle (
  seq          INTEGER PRIMARY KEY,
  scope_id     TEXT NOT NULL CHECK (length(scope_id) BETWEEN 1 AND 200),
  ctx_id       TEXT NOT NULL,
  turn_number  INTEGER NOT NULL CHECK (turn_number >= 0),
  kind         TEXT NOT NULL CHECK (kind IN ('message', 'tool_result', 'memory', 'plan', 'execution_result', 'subscription', 'system')),
  source       TEXT NOT NULL,
  taint        TEXT NOT NULL CHECK (taint IN ('owner', 'auth', 'external')),
  content      TEXT NOT NULL,
  token_count  INTEGER NOT NULL CHECK (token_count >= 0),
  relevance    REAL NOT NULL,
  masked       INTEGER NOT NULL CHECK (masked IN (0, 1)),
  pinned       INTEGER NOT NULL CHECK (pinned IN (0, 1)),
  created_at   TEXT NOT NULL,
  UNIQUE (scope_id, ctx_id)
);
CREATE INDEX IF NOT EXISTS silas_chronicle_scope ON silas_chronicle(scope_id, seq);
CREATE INDEX IF NOT EXISTS silas_chronicle_created ON silas_chronicle(created_at);

CREATE TABLE IF NOT EXISTS silas_chronicle_scopes (
  scope_id      TEXT PRIMARY KEY CHECK (length(scope_id) BETWEEN 1 AND 200),
  turn_counter  INTEGER NOT NULL DEFAULT 0 CHECK (turn_counter >= 0),
  updated_at    TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS silas_memory_items (
  seq               INTEGER PRIMARY KEY,
  memory_id         TEXT NOT NULL UNIQUE,
  scope_id          TEXT NOT NULL CHECK (length(scope_id) BETWEEN 1 AND 200),
  content           TEXT NOT NULL,
  memory_type       TEXT NOT NULL CHECK (memory_type IN ('fact', 'episode', 'preference', 'skill_note', 'decision', 'foresight', 'profile')),
  reingestion_tier  TEXT NOT NULL CHECK (reingestion_tier IN ('active', 'low_reingestion')),
  trust_level       TEXT NOT NULL CHECK (trust_level IN ('working', 'verified', 'constitutional')),
  taint             TEXT NOT NULL CHECK (taint IN ('owner', 'auth', 'external')),
  source_kind       TEXT NOT NULL,
  token_count       INTEGER NOT NULL CHECK (token_count >= 0),
  session_id        TEXT,
  semantic_tags     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(semantic_tags) AND json_type(semantic_tags) = 'array'),
  entity_refs       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(entity_refs) AND json_type(entity_refs) = 'array'),
  causal_refs       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(causal_refs) AND json_type(causal_refs) = 'array'),
  temporal_prev     TEXT,
  temporal_next     TEXT,
  valid_from        TEXT,
  valid_until       TEXT,
  access_count      INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
  last_accessed     TEXT,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS silas_memory_scope_created ON silas_memory_items(scope_id, created_at);
CREATE INDEX IF NOT EXISTS silas_memory_session ON silas_memory_items(scope_id, session_id) WHERE session_id IS NOT NULL;

CREATE VIRTUAL TABLE IF NOT EXISTS silas_memory_fts USING fts5(
  content, semantic_tags,
  content = 'silas_memory_items', content_rowid = 'seq',
  tokenize = 'porter unicode61 tokenchars ''_-'''
);
CREATE TRIGGER IF NOT EXISTS silas_memory_fts_insert AFTER INSERT ON silas_memory_items BEGIN
  INSERT INTO silas_memory_fts(rowid, content, semantic_tags) VALUES (new.seq, new.content, new.semantic_tags);
END;
CREATE TRIGGER IF NOT EXISTS silas_memory_fts_delete AFTER DELETE ON silas_memory_items BEGIN
  INSERT INTO silas_memory_fts(silas_memory_fts, rowid, content, semantic_tags) VALUES ('delete', old.seq, old.content, old.semantic_tags);
END;
CREATE TRIGGER IF NOT EXISTS silas_memory_fts_update AFTER UPDATE OF content, semantic_tags ON silas_memory_items BEGIN
  INSERT INTO silas_memory_fts(silas_memory_fts, rowid, content, semantic_tags) VALUES ('delete', old.seq, old.content, old.semantic_tags);
  INSERT INTO silas_memory_fts(rowid, content, semantic_tags) VALUES (new.seq, new.content, new.semantic_tags);
END;
`;
