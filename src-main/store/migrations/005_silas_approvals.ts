/**
 * Silas plan approvals (spec 002 §3.6, §4.5, §5.11). A token's consumption state lives here, not
 * in the token: `executions_used` on the token row is the authority, and every consumption
 * inserts its deterministic key under UNIQUE constraints in the same `BEGIN IMMEDIATE`
 * transaction that increments it, so a replay in this or any other process fails (DESIGN
 * invariant 1). `silas_nonces` is the domain-scoped nonce store; it is pruned, the consumption
 * table is not.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS silas_approval_tokens (
  token_id         TEXT PRIMARY KEY,
  work_item_id     TEXT NOT NULL,
  plan_hash        TEXT NOT NULL,
  scope            TEXT NOT NULL,
  key_fingerprint  TEXT NOT NULL,
  expires_at       TEXT NOT NULL,
  max_executions   INTEGER NOT NULL CHECK (max_executions >= 1),
  executions_used  INTEGER NOT NULL DEFAULT 0 CHECK (executions_used >= 0 AND executions_used <= max_executions),
  first_used_at    TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS silas_approval_consumptions (
  consumption_key  TEXT NOT NULL UNIQUE,
  token_id         TEXT NOT NULL REFERENCES silas_approval_tokens(token_id),
  bound_hash       TEXT NOT NULL,
  execution_index  INTEGER NOT NULL CHECK (execution_index >= 1),
  execution_nonce  TEXT NOT NULL UNIQUE,
  consumed_at      TEXT NOT NULL,
  PRIMARY KEY (token_id, execution_index),
  UNIQUE (token_id, bound_hash)
);

CREATE TABLE IF NOT EXISTS silas_nonces (
  domain       TEXT NOT NULL,
  nonce        TEXT NOT NULL,
  recorded_at  TEXT NOT NULL,
  PRIMARY KEY (domain, nonce)
);
CREATE INDEX IF NOT EXISTS silas_nonces_recorded_at ON silas_nonces(recorded_at);
`;
