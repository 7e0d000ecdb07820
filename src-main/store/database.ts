import { chmodSync, closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { runMigrations, type MigrationReport } from './migrate.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { sqliteConnection, type SqliteDatabase } from './transaction.js';

/** `PRAGMA application_id` of a Silas database: ASCII "SILS". Tells our files from foreign ones. */
export const SILAS_APPLICATION_ID = 0x53494c53;
const SQLITE_MAGIC = 'SQLite format 3\u0000';
/** The shadow tables SQLite creates beside an FTS5 table; `sqlite_master` lists them as tables. */
const FTS5_SHADOWS = ['_data', '_idx', '_content', '_docsize', '_config'];

/** Tables a Silas database may hold: the migration record and whatever the migrations create. */
function ourTables(migrations: readonly Migration[]): Set<string> {
  const names = migrations.flatMap((m) => [...m.sql.matchAll(/CREATE TABLE IF NOT EXISTS\s+([A-Za-z_][A-Za-z0-9_]*)/gi)].map((match) => match[1]!));
  const fts = migrations.flatMap((m) => [...m.sql.matchAll(/CREATE VIRTUAL TABLE IF NOT EXISTS\s+([A-Za-z_][A-Za-z0-9_]*)\s+USING\s+fts5\b/gi)].map((match) => match[1]!));
  return new Set(['applied_migrations', ...names, ...fts, ...fts.flatMap((name) => FTS5_SHADOWS.map((suffix) => name + suffix))]);
}

export interface OpenOptions {
  /** Create the file when it does not exist (only `silas init` does). */
  create: boolean;
  migrations?: readonly Migration[];
  now?: () => string;
  /** Shown in the "run init" hint. */
  home?: string;
}

export interface OpenedDatabase {
  /** Opaque outside store/ (store/transaction.ts): services hand it to repositories. */
  db: SqliteDatabase;
  migrations: MigrationReport;
}

/**
 * Opens the runtime's SQLite database with the pragmas of spec 002 §6.1 and applies pending
 * migrations. Refuses, without writing anything, files that are not ours or are newer than us.
 */
export function openDatabase(file: string, options: OpenOptions): OpenedDatabase {
  const exists = existsSync(file) && statSync(file).size > 0;
  if (!exists && !options.create) {
    const home = options.home ?? 'DIR';
    throw new SilasError(ErrorCode.Database, `no Silas database at ${file}; run \`silas init --home ${home}\` first`);
  }
  if (exists) assertSqliteFile(file);

  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: !options.create });
  } catch (error) {
    throw mapSqliteError(file, error);
  }
  if (!exists) {
    // The ledger is private: only the owner may read what their agents did.
    chmodSync(file, 0o600);
  }
  try {
    db.pragma('busy_timeout = 5000');
    assertOurs(db, file, options.migrations ?? MIGRATIONS);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const report = runMigrations(db, options.migrations ?? MIGRATIONS, file, options.now ?? (() => new Date().toISOString()));
    if ((db.pragma('application_id', { simple: true }) as number) === 0) {
      db.pragma(`application_id = ${SILAS_APPLICATION_ID}`);
    }
    return { db, migrations: report };
  } catch (error) {
    db.close();
    throw mapSqliteError(file, error);
  }
}

function assertSqliteFile(file: string): void {
  const header = Buffer.alloc(16);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    readSync(fd, header, 0, 16, 0);
  } catch (error) {
    throw mapSqliteError(file, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (header.toString('latin1') !== SQLITE_MAGIC) {
    throw new SilasError(
      ErrorCode.DatabaseForeign,
      `${file} is not a SQLite database (corrupt, or another program's file); move it aside and run \`silas init\` again, or restore it from a backup`,
    );
  }
}

function assertOurs(db: Database.Database, file: string, migrations: readonly Migration[]): void {
  const appId = db.pragma('application_id', { simple: true }) as number;
  if (appId === SILAS_APPLICATION_ID) return;
  if (appId !== 0) {
    throw new SilasError(ErrorCode.DatabaseForeign, `${file} belongs to another application (application_id ${appId}); point --home at a Silas data directory`);
  }
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  const ours = ourTables(migrations);
  const foreign = tables.map((t) => t.name).filter((name) => !ours.has(name));
  if (foreign.length > 0) {
    throw new SilasError(
      ErrorCode.DatabaseForeign,
      `${file} is not a Silas database (it has tables ${foreign.slice(0, 3).join(', ')}); point --home at a Silas data directory or move the file aside`,
    );
  }
}

export function mapSqliteError(file: string, error: unknown): Error {
  if (error instanceof SilasError) return error;
  const code = (error as { code?: string }).code ?? '';
  const message = (error as Error).message ?? String(error);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || /not a database|malformed/i.test(message)) {
    return new SilasError(ErrorCode.DatabaseForeign, `${file} is corrupt or not a Silas database (${message}); restore it from a backup or move it aside and run \`silas init\``, { cause: error });
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'EPERM' || code === 'SQLITE_READONLY' || code === 'SQLITE_PERM') {
    return new SilasError(ErrorCode.Permission, `cannot open ${file} for writing (${message}); check the permissions of the data home or choose another --home`, { cause: error });
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new SilasError(ErrorCode.Database, `${file} is locked by another process for too long (${message}); retry, or stop the other Silas process`, { cause: error });
  }
  return new SilasError(ErrorCode.Database, `${file}: ${message}`, { cause: error });
}

/** SQLite's quick integrity check (`PRAGMA quick_check`): `ok`, or the first problems it found. */
export function quickCheck(db: SqliteDatabase): string {
  return String(sqliteConnection(db).pragma('quick_check', { simple: true }));
}
