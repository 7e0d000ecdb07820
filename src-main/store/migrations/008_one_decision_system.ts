/**
 * One decision system (docs/architecture.md §3 "Decisions"). Tool-call approvals are ApprovalTokens
 * from the approval engine now, consumed under its ledger (`silas_approval_consumptions`,
 * `silas_nonces`); the old per-proxy nonce table held only nonces of the superseded
 * `silas.mcp.approval/v1` format, which nothing accepts any more, so it goes. A changed tool
 * definition the person chose to keep blocked is remembered by its hash, so its card leaves Review
 * until the server announces yet another definition.
 */
export const sql = `
DROP TABLE IF EXISTS mcp_approval_nonces;
ALTER TABLE mcp_tool_pins ADD COLUMN declined_hash TEXT;
`;
