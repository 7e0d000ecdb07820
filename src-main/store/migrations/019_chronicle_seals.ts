/**
 * Chronicle entries carry a seal (docs/architecture.md §2 "Sealed state"): the ledger key's MAC
 * over the scope, id, kind, source, taint and content of what was said. A restart puts the
 * chronicle back into the context, and evicted items become memories: a row whose taint was
 * raised in the database, or written before this column, is read as `external`.
 */
export const sql = `
ALTER TABLE silas_chronicle ADD COLUMN seal TEXT;
`;
