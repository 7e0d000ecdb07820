import type Database from 'better-sqlite3';

/**
 * The handle services pass to repositories. Only `store/` imports better-sqlite3
 * (docs/architecture.md §3): a service holds this type to hand its connection on, never to run SQL.
 */
export type SqliteDatabase = Database.Database;

/**
 * Runs `fn` in one `BEGIN IMMEDIATE` transaction: the write lock is taken before anything is
 * read, so concurrent writers in other processes serialise. Repositories called inside `fn`
 * join it (a nested call becomes a savepoint), which is how a consumption and its audit entry
 * commit together or not at all. A throw inside `fn` rolls everything back and is rethrown.
 */
export function inImmediateTransaction<T>(db: SqliteDatabase, fn: () => T): T {
  return db.transaction(fn).immediate();
}

