/**
 * Memories carry a seal (docs/architecture.md §2 "Sealed state"): the ledger key's MAC over what
 * decides how far a memory is trusted (scope, content, lane, trust level, taint, source). A row
 * planted or rewritten in the database, or written before this column, is read as `external`
 * working memory, never as the owner's words (spec 002 §5.12).
 */
export const sql = `
ALTER TABLE silas_memory_items ADD COLUMN seal TEXT;
`;
