/** Baseline: the audit hash chain, its signed checkpoints, and the owner public-key registry. */
export const sql = `
CREATE TABLE IF NOT EXISTS audit_entries (
  idx        INTEGER PRIMARY KEY,
  id         TEXT NOT NULL UNIQUE,
  ts         TEXT NOT NULL,
  event      TEXT NOT NULL,
  data       TEXT NOT NULL,
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_entries_ts ON audit_entries(ts);
CREATE INDEX IF NOT EXISTS audit_entries_event ON audit_entries(event, idx);

CREATE TABLE IF NOT EXISTS audit_checkpoints (
  id               TEXT PRIMARY KEY,
  idx              INTEGER NOT NULL,
  hash             TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  key_fingerprint  TEXT NOT NULL,
  signature        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_checkpoints_idx ON audit_checkpoints(idx);

CREATE TABLE IF NOT EXISTS owner_keys (
  fingerprint      TEXT PRIMARY KEY,
  public_key       TEXT NOT NULL,
  keyring_service  TEXT NOT NULL,
  keyring_account  TEXT NOT NULL,
  created_at       TEXT NOT NULL
);
`;
