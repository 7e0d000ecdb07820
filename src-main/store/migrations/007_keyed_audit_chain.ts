/**
 * The audit chain becomes keyed, so the ledger cannot be rewritten without the keyring
 * (docs/ledger.md "The keyed chain"): entries from `keyed_from` on are linked with HMAC-SHA256
 * under a ledger key held only in the OS keyring, and every checkpoint is also an
 * `audit.checkpoint` entry of the chain. Existing entries keep their plain sha256 links and are
 * sealed by the first keyed entry when a process that holds the keyring first opens the home. This
 * row is a mirror for diagnostics and for refusing to mint a second key: the trusted copy of
 * `keyed_from` lives in the keyring with the key.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS audit_chain_state (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  key_id      TEXT NOT NULL,
  keyed_from  INTEGER NOT NULL CHECK (keyed_from >= 0),
  keyed_at    TEXT NOT NULL
);
`;
