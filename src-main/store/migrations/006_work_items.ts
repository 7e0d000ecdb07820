/**
 * Silas work items (spec 002 §4.13, ADR-010): durable state of tasks, projects and goals, so a
 * crash does not lose attempts, budget consumed or verification history. The whole WorkItem is
 * one JSON document (`item_json`, the approval token inside it with its base64 signature) that
 * is parsed with the WorkItem schema on every read; the other columns are copies of its fields
 * kept for lookups and for cross-checks on read (a row whose columns and document disagree was
 * edited outside Silas). `result_json` is the last WorkItemResult the executor recorded.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS silas_work_items (
  id            TEXT PRIMARY KEY,
  type          TEXT NOT NULL CHECK (type IN ('task', 'project', 'goal')),
  status        TEXT NOT NULL CHECK (status IN ('pending', 'running', 'healthy', 'done', 'failed', 'stuck', 'blocked', 'paused')),
  parent_id     TEXT,
  follow_up_of  TEXT,
  plan_hash     TEXT NOT NULL CHECK (length(plan_hash) = 64),
  item_json     TEXT NOT NULL CHECK (json_valid(item_json)),
  result_json   TEXT CHECK (result_json IS NULL OR json_valid(result_json)),
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS silas_work_items_status ON silas_work_items(status, created_at, id);
CREATE INDEX IF NOT EXISTS silas_work_items_parent ON silas_work_items(parent_id, created_at, id) WHERE parent_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS silas_work_items_follow_up ON silas_work_items(follow_up_of) WHERE follow_up_of IS NOT NULL;
`;
