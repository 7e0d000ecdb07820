/**
 * "Always allow this tool with these arguments on this server": standing approvals, each
 * signed by the owner key over its exact binding so a row written by anyone else is inert.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS mcp_standing_approvals (
  id               TEXT PRIMARY KEY,
  server           TEXT NOT NULL,
  tool             TEXT NOT NULL,
  args_hash        TEXT NOT NULL,
  args_display     TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  key_fingerprint  TEXT NOT NULL,
  signature        TEXT NOT NULL,
  revoked_at       TEXT
);
CREATE INDEX IF NOT EXISTS mcp_standing_approvals_lookup ON mcp_standing_approvals(server, tool, args_hash);
`;
