import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp.js';
import { SILAS_APPLICATION_ID, openDatabase } from './database.js';
import { migrationChecksum } from './migrate.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { sqliteConnection } from './transaction.js';

const tempDir = useTempDirs();

function fileDigest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function freshDb(): string {
  const file = join(tempDir(), 'silas.db');
  sqliteConnection(openDatabase(file, { create: true }).db).close();
  return file;
}

/** Mutates the file the way a person or another program might, outside Silas. */
function tamper(file: string, sql: string): void {
  const db = new Database(file);
  db.exec(sql);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

describe('openDatabase', () => {
  it('creates a database with every migration recorded and the runtime pragmas', () => {
    const file = join(tempDir(), 'silas.db');
    const { db, migrations } = openDatabase(file, { create: true });
    expect(migrations.applied).toEqual(MIGRATIONS.map((m) => m.id));
    expect(sqliteConnection(db).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqliteConnection(db).pragma('synchronous', { simple: true })).toBe(1);
    expect(sqliteConnection(db).pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(sqliteConnection(db).pragma('application_id', { simple: true })).toBe(SILAS_APPLICATION_ID);
    const rows = sqliteConnection(db).prepare('SELECT id, checksum FROM applied_migrations').all() as { id: string; checksum: string }[];
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ id: m.id, checksum: migrationChecksum(m) })));
    sqliteConnection(db).close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('reopens without applying anything again', () => {
    const file = freshDb();
    const { db, migrations } = openDatabase(file, { create: false });
    expect(migrations.applied).toEqual([]);
    expect(migrations.alreadyApplied).toBe(MIGRATIONS.length);
    sqliteConnection(db).close();
  });

  it('applies a new migration added by a later version', () => {
    const file = freshDb();
    const next: Migration = { id: '090_extra', sql: 'CREATE TABLE IF NOT EXISTS extra (x INTEGER);' };
    const { db, migrations } = openDatabase(file, { create: false, migrations: [...MIGRATIONS, next] });
    expect(migrations.applied).toEqual(['090_extra']);
    expect(sqliteConnection(db).pragma('user_version', { simple: true })).toBe(90);
    sqliteConnection(db).close();
  });

  it('upgrades a database of the previous release by applying only the chronicle, memory and scope migrations', () => {
    const file = join(tempDir(), 'silas.db');
    const previous = MIGRATIONS.filter((m) => m.id < '009');
    sqliteConnection(openDatabase(file, { create: true, migrations: previous }).db).close();
    const { db, migrations } = openDatabase(file, { create: false });
    expect(migrations.applied).toEqual(MIGRATIONS.filter((m) => m.id >= '009').map((m) => m.id));
    expect(migrations.applied.slice(0, 4)).toEqual(['009_chronicle_and_memory', '010_stream_scopes', '011_policy_versions', '012_alignment']);
    expect(sqliteConnection(db).pragma('user_version', { simple: true })).toBe(Number(MIGRATIONS.at(-1)!.id.slice(0, 3)));
    const tables = sqliteConnection(db).prepare("SELECT name FROM sqlite_master WHERE name LIKE 'silas_chronicle%' OR name LIKE 'silas_memory%' ORDER BY name").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['silas_chronicle', 'silas_chronicle_scopes', 'silas_memory_items', 'silas_memory_fts', 'silas_memory_fts_insert']));
    sqliteConnection(db).close();
  });

  it('refuses a database with the chronicle migration in an app that predates it', () => {
    const file = freshDb();
    const previous = MIGRATIONS.filter((m) => m.id < '009');
    expect(() => openDatabase(file, { create: false, migrations: previous })).toThrow(
      expect.objectContaining({ code: 'E_DB_NEWER', message: expect.stringContaining('009_chronicle_and_memory') }),
    );
  });

  it('knows the full-text index and its shadow tables as its own when the application id is missing', () => {
    // A crash between the migrations and the application_id pragma leaves exactly this file.
    const file = freshDb();
    tamper(file, 'PRAGMA application_id = 0');
    const { db } = openDatabase(file, { create: false });
    expect(sqliteConnection(db).pragma('application_id', { simple: true })).toBe(SILAS_APPLICATION_ID);
    sqliteConnection(db).close();
  });

  it('tells the user to run init when there is no database', () => {
    const file = join(tempDir(), 'silas.db');
    expect(() => openDatabase(file, { create: false, home: '/some/home' })).toThrow(/silas init --home \/some\/home/);
  });

  it('refuses a changed migration checksum, naming the file, and leaves the file untouched', () => {
    const file = freshDb();
    tamper(file, `UPDATE applied_migrations SET checksum = '${'ab'.repeat(32)}'`);
    const before = fileDigest(file);
    expect(() => openDatabase(file, { create: false })).toThrow(expect.objectContaining({ code: 'E_DB_MIGRATION', message: expect.stringContaining(file) }));
    expect(fileDigest(file)).toBe(before);
  });

  it('refuses a database written by a newer version', () => {
    const file = freshDb();
    tamper(file, "INSERT INTO applied_migrations VALUES ('099_future', 'x', '2030-01-01T00:00:00Z')");
    const before = fileDigest(file);
    expect(() => openDatabase(file, { create: false })).toThrow(expect.objectContaining({ code: 'E_DB_NEWER', message: expect.stringMatching(/newer version of Silas.*upgrade/) }));
    expect(fileDigest(file)).toBe(before);
  });

  it('refuses a schema version beyond what this app knows', () => {
    const file = freshDb();
    tamper(file, 'PRAGMA user_version = 42');
    expect(() => openDatabase(file, { create: false })).toThrow(expect.objectContaining({ code: 'E_DB_NEWER' }));
  });

  it('refuses a record with a migration this app does not have', () => {
    const file = freshDb();
    const renamed: Migration = { id: '001_renamed', sql: MIGRATIONS[0]!.sql };
    expect(() => openDatabase(file, { create: false, migrations: [renamed] })).toThrow(/migration 001_audit_and_keys is recorded as applied but this app has no such migration/);
  });

  it('refuses a gap: a missing migration below one that was applied', () => {
    const file = freshDb();
    const two: Migration = { id: '090_two', sql: 'CREATE TABLE IF NOT EXISTS two (x);' };
    const three: Migration = { id: '091_three', sql: 'CREATE TABLE IF NOT EXISTS three (x);' };
    sqliteConnection(openDatabase(file, { create: false, migrations: [...MIGRATIONS, two, three] }).db).close();
    tamper(file, "DELETE FROM applied_migrations WHERE id = '090_two'");
    expect(() => openDatabase(file, { create: false, migrations: [...MIGRATIONS, two, three] })).toThrow(/090_two was never applied although later ones were/);
  });

  it('refuses a file that is not SQLite at all, without changing it', () => {
    const file = join(tempDir(), 'silas.db');
    writeFileSync(file, 'this is a text file, not a database\n'.repeat(20));
    const before = fileDigest(file);
    expect(() => openDatabase(file, { create: false })).toThrow(expect.objectContaining({ code: 'E_DB_FOREIGN', message: expect.stringContaining('not a SQLite database') }));
    expect(fileDigest(file)).toBe(before);
  });

  it('refuses another application\'s SQLite database', () => {
    const file = join(tempDir(), 'silas.db');
    const other = new Database(file);
    other.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
    other.close();
    const before = fileDigest(file);
    expect(() => openDatabase(file, { create: true })).toThrow(/not a Silas database \(it has tables customers\)/);
    expect(fileDigest(file)).toBe(before);
  });

  it('refuses a database with a foreign application_id', () => {
    const file = join(tempDir(), 'silas.db');
    const other = new Database(file);
    other.pragma('application_id = 1234');
    other.exec('CREATE TABLE t (x)');
    other.close();
    expect(() => openDatabase(file, { create: true })).toThrow(/belongs to another application \(application_id 1234\)/);
  });

  it('reports a truncated (corrupt) database file clearly', () => {
    const file = freshDb();
    const bytes = readFileSync(file);
    writeFileSync(file, Buffer.concat([bytes.subarray(0, 100), Buffer.alloc(4096, 0x5a)]));
    expect(() => openDatabase(file, { create: false })).toThrow(/corrupt or not a Silas database|not a Silas database/);
  });
});

describe('the handle services hold', () => {
  it('is opaque: it runs no SQL until store/ unwraps it (the @ts-expect-error lines fail typecheck otherwise)', () => {
    const { db } = openDatabase(join(tempDir(), 'silas.db'), { create: true });
    // @ts-expect-error a service cannot prepare a statement on a SqliteDatabase (docs/architecture.md §3)
    expect(typeof db.prepare).toBe('function');
    // @ts-expect-error nor open a transaction on it
    expect(typeof db.transaction).toBe('function');
    expect(db.open).toBe(true);
    sqliteConnection(db).close();
    expect(db.open).toBe(false);
  });
});
