/**
 * A tool whose definition looks poisoned the first time a server announces it is held, not
 * pinned (docs/mcp-proxy.md "Tool pins"): its row has a pending hash and no approved one until
 * the person decides, so `approved_hash` and `approved_at` may be NULL (SQLite cannot relax NOT
 * NULL in place, hence the copy). `pending_findings` is what the detectors said about the pending
 * definition, JSON, shown on its card: it decides nothing (the seal over the approved hash does),
 * so it is not sealed.
 */
export const sql = `
CREATE TABLE mcp_tool_pins_020 (
  server           TEXT NOT NULL,
  tool             TEXT NOT NULL,
  approved_hash    TEXT,
  first_seen_at    TEXT NOT NULL,
  approved_at      TEXT,
  pending_hash     TEXT,
  pending_since    TEXT,
  declined_hash    TEXT,
  seal             TEXT,
  pending_findings TEXT,
  PRIMARY KEY (server, tool)
);
INSERT INTO mcp_tool_pins_020 (server, tool, approved_hash, first_seen_at, approved_at, pending_hash, pending_since, declined_hash, seal)
  SELECT server, tool, approved_hash, first_seen_at, approved_at, pending_hash, pending_since, declined_hash, seal FROM mcp_tool_pins;
DROP TABLE mcp_tool_pins;
ALTER TABLE mcp_tool_pins_020 RENAME TO mcp_tool_pins;
`;
