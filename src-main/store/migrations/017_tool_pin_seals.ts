/**
 * Tool pins carry a seal (docs/architecture.md §2 "Sealed state"): the ledger key's MAC over the
 * server, the tool and the approved hash, so a database writer can no longer approve a poisoned
 * definition by rewriting `approved_hash`. Rows from before this column are sealed once, on the
 * first start of a process holding the keys; after that an unsealed row is not trusted.
 */
export const sql = `
ALTER TABLE mcp_tool_pins ADD COLUMN seal TEXT;
`;
