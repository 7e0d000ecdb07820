/**
 * The slice registry of ILP knowledge distillation (spec 004 §4.3 "Slice Evolution Engine",
 * Appendix B Level 3; docs/ilp.md "Knowledge distillation"): every version of every slice the
 * self-evolution loop writes, proposed, deployed, declined or superseded, with the pattern it was
 * distilled from, its scores and the reasons behind them. A superseded version is the backup a
 * rollback restores; history is never rewritten, only a version's status moves on.
 *
 * The registry decides what every agent reads as knowledge, so each row carries a seal
 * (docs/architecture.md §2 "Sealed state"): the ledger key's MAC over every column but `seq`,
 * the text by its SHA-256 (checked against the text when read). A row whose seal fails is never
 * deployed, never a backup, and is reported as not trusted. At most one version of a slice is
 * deployed at a time: the engine enforces it in its transaction, and the partial unique index
 * refuses a second one whoever writes it. The CHECK on `slice_id` is the navigator's id rule: a
 * name, never a path.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS ilp_slice_versions (
  seq                   INTEGER PRIMARY KEY,
  id                    TEXT NOT NULL UNIQUE CHECK (length(id) BETWEEN 1 AND 64),
  slice_id              TEXT NOT NULL CHECK (length(slice_id) BETWEEN 1 AND 128
                          AND slice_id GLOB '[a-z0-9]*' AND slice_id NOT GLOB '*[^a-z0-9._-]*' AND instr(slice_id, '..') = 0),
  version               INTEGER NOT NULL CHECK (version >= 1),
  text                  TEXT NOT NULL,
  sha256                TEXT NOT NULL CHECK (length(sha256) = 64),
  kind                  TEXT NOT NULL CHECK (kind IN ('created', 'updated', 'rollback', 'removed')),
  status                TEXT NOT NULL CHECK (status IN ('proposed', 'deployed', 'declined', 'superseded')),
  concepts_json         TEXT NOT NULL CHECK (json_valid(concepts_json) AND json_type(concepts_json) = 'array'),
  pattern_json          TEXT NOT NULL CHECK (json_valid(pattern_json)),
  confidence            REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  constitutional_score  REAL NOT NULL CHECK (constitutional_score BETWEEN 0 AND 1),
  rationale             TEXT NOT NULL,
  reasons_json          TEXT NOT NULL CHECK (json_valid(reasons_json) AND json_type(reasons_json) = 'array'),
  created_at            TEXT NOT NULL,
  decided_at            TEXT,
  seal                  TEXT,
  UNIQUE (slice_id, version)
);
CREATE UNIQUE INDEX IF NOT EXISTS ilp_slice_versions_one_deployed ON ilp_slice_versions(slice_id) WHERE status = 'deployed';
CREATE INDEX IF NOT EXISTS ilp_slice_versions_status ON ilp_slice_versions(status, slice_id);
`;
