/**
 * Conversation scopes of the Stream (spec 002 §5.1, §8.1; docs/silas/stream.md "Scopes"). A scope's
 * id is public (it is in the ledger and in the chronicle's rows); continuing it from a new
 * connection (a reload, a restart) needs its resume key, of which only a SHA-256 is kept, so a
 * process that can read the database can neither resume a conversation nor read one through the
 * control plane.
 *
 * `silas_stream_work` is the work the Stream dispatched (§5.1 step 12) and where it stands, so a
 * restart resumes what was not finished (§5.1.3 step 6): the plan is asked for again (an approval
 * is single-use, and one pending at shutdown was answered "no").
 */
export const sql = `
CREATE TABLE IF NOT EXISTS silas_stream_scopes (
  scope_id      TEXT PRIMARY KEY CHECK (length(scope_id) BETWEEN 1 AND 200),
  key_sha256    TEXT NOT NULL CHECK (length(key_sha256) = 64),
  created_at    TEXT NOT NULL,
  last_used_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS silas_stream_work (
  work_item_id  TEXT PRIMARY KEY CHECK (length(work_item_id) BETWEEN 1 AND 200),
  scope_id      TEXT NOT NULL CHECK (length(scope_id) BETWEEN 1 AND 200),
  plan_hash     TEXT NOT NULL CHECK (length(plan_hash) = 64),
  item_json     TEXT NOT NULL,
  status        TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS silas_stream_work_open ON silas_stream_work(status) WHERE status NOT IN ('done', 'failed', 'blocked', 'declined', 'stuck', 'verification_failed');
`;
