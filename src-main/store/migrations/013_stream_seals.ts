/**
 * Seals on the Stream's state (docs/architecture.md §2 "Sealed state", docs/silas/stream.md):
 * a scope's resume-key hash and each dispatched work row carry an HMAC with the ledger key, so a
 * process that can write the database but not reach the keyring can neither hand a conversation
 * to a key of its own nor plant work that a restart would show as the person's resumed plan.
 * Rows written before this migration have no seal: they are refused (a scope opens anew, work is
 * not resumed) rather than trusted.
 *
 * `origin_json` is where the plan came from (the channel and taint of the conversation that
 * proposed it), kept so a resumed plan's card still says so; it is part of the sealed value.
 */
export const sql = `
ALTER TABLE silas_stream_scopes ADD COLUMN key_seal TEXT;
ALTER TABLE silas_stream_work ADD COLUMN origin_json TEXT;
ALTER TABLE silas_stream_work ADD COLUMN seal TEXT;
`;
