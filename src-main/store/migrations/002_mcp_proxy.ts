/**
 * The MCP proxy's state: tool-definition pins (the tool-poisoning defence) and the nonces of
 * consumed tool-call approvals. A nonce is inserted under its UNIQUE key in the same
 * transaction that audits the approved call, so a replayed approval fails (DESIGN invariant 1).
 */
export const sql = `
CREATE TABLE IF NOT EXISTS mcp_tool_pins (
  server          TEXT NOT NULL,
  tool            TEXT NOT NULL,
  approved_hash   TEXT NOT NULL,
  first_seen_at   TEXT NOT NULL,
  approved_at     TEXT NOT NULL,
  pending_hash    TEXT,
  pending_since   TEXT,
  PRIMARY KEY (server, tool)
);

CREATE TABLE IF NOT EXISTS mcp_approval_nonces (
  nonce            TEXT PRIMARY KEY,
  server           TEXT NOT NULL,
  tool             TEXT NOT NULL,
  session_id       TEXT NOT NULL,
  request_id       TEXT NOT NULL,
  key_fingerprint  TEXT NOT NULL,
  expires_at       TEXT NOT NULL,
  used_at          TEXT NOT NULL
);
`;
