import type Database from 'better-sqlite3';

declare const sqliteHandle: unique symbol;

/**
 * The handle services pass to repositories: opaque outside `store/`. A service may know which
 * file it is and whether it is open, nothing more, so SQL cannot be written anywhere but in a
 * repository (docs/architecture.md §3). A better-sqlite3 connection is one (tests pass theirs).
 */
export interface SqliteDatabase {
  readonly name: string;
  readonly open: boolean;
  /** Never set: only marks that a value came from a connection; `store/` unwraps it. */
  readonly [sqliteHandle]?: never;
}

/** The connection itself, for repositories in `store/` only (lint refuses the import elsewhere). */
export type SqliteConnection = Database.Database;

/** Unwraps the handle a service passed in; only `store/` calls this (lint refuses the import elsewhere). */
export function sqliteConnection(db: SqliteDatabase): SqliteConnection {
  return db as SqliteConnection;
}

/** Closes a database a service opened through `store/` (the one operation a holder may do). */
export function closeDatabase(db: SqliteDatabase): void {
  sqliteConnection(db).close();
}

/**
 * Runs `fn` in one `BEGIN IMMEDIATE` transaction: the write lock is taken before anything is
 * read, so concurrent writers in other processes serialise. Repositories called inside `fn`
 * join it (a nested call becomes a savepoint), which is how a consumption and its audit entry
 * commit together or not at all. A throw inside `fn` rolls everything back and is rethrown.
 */
export function inImmediateTransaction<T>(db: SqliteDatabase, fn: () => T): T {
  return sqliteConnection(db).transaction(fn).immediate();
}
