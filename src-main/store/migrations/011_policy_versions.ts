/**
 * Every saved version of a policy file (docs/policy-editor.md "History"): its text, hashes, the key
 * that signed it and why it was written (save, restore, adopt). A version whose text no longer
 * matches its recorded hash (edited in the database) is reported as corrupt and never restored.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS policy_versions (
  id            INTEGER PRIMARY KEY,
  path          TEXT NOT NULL CHECK (length(path) BETWEEN 1 AND 4096),
  seq           INTEGER NOT NULL CHECK (seq >= 1),
  text          TEXT NOT NULL,
  text_sha256   TEXT NOT NULL CHECK (length(text_sha256) = 64),
  policy_hash   TEXT NOT NULL CHECK (length(policy_hash) = 64),
  signer        TEXT NOT NULL,
  action        TEXT NOT NULL CHECK (action IN ('save', 'restore', 'adopt')),
  saved_at      TEXT NOT NULL,
  UNIQUE (path, seq)
);
`;
