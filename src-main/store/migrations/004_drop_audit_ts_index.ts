/**
 * Drops the audit `ts` index: only `silas audit export --since` filtered on it, and an export
 * scans the chain anyway, while every append paid to maintain it (a secondary index costs
 * ~8–9 µs per insert on the proxy's hot path). `audit_entries_event` stays: the Servers
 * page queries by event.
 */
export const sql = `
DROP INDEX IF EXISTS audit_entries_ts;
`;
