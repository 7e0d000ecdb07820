import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { Migration } from './migrations/index.js';

/** A migration's recorded checksum: an edited, already-applied migration is refused (docs/architecture.md §4.5). */
export function migrationChecksum(migration: Migration): string {
  return createHash('sha256').update(migration.sql, 'utf8').digest('hex');
}

function migrationNumber(id: string): number {
  const match = /^(\d{3,})_[a-z0-9_]+$/.exec(id);
  if (!match) throw new Error(`migration id "${id}" must look like 001_name`);
  return Number(match[1]);
}

interface AppliedRow {
  id: string;
  checksum: string;
  applied_at: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies pending migrations (spec 002 §6.1). Fails closed, naming the file, when the
 * recorded state cannot have come from this app: a changed checksum, a migration missing
 * from the record while later ones are present, or migrations from a newer version.
 */
export function runMigrations(db: Database.Database, migrations: readonly Migration[], file: string, now: () => string): MigrationReport {
  db.exec(`CREATE TABLE IF NOT EXISTS applied_migrations (
    id TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const known = new Map(migrations.map((m) => [m.id, m]));
  const latest = Math.max(0, ...migrations.map((m) => migrationNumber(m.id)));
  const applied = db.prepare('SELECT id, checksum, applied_at FROM applied_migrations ORDER BY id').all() as AppliedRow[];

  const userVersion = db.pragma('user_version', { simple: true }) as number;
  for (const row of applied) {
    if (!known.has(row.id)) {
      const number = /^\d+/.test(row.id) ? Number(/^\d+/.exec(row.id)![0]) : Number.NaN;
      if (number > latest) throw newerDatabase(file, row.id);
      throw new SilasError(
        ErrorCode.Migration,
        `${file}: migration ${row.id} is recorded as applied but this app has no such migration; restore the database from a backup made by this version, or use a newer Silas`,
      );
    }
    const expected = migrationChecksum(known.get(row.id)!);
    if (expected !== row.checksum) {
      throw new SilasError(
        ErrorCode.Migration,
        `${file}: checksum of applied migration ${row.id} differs from this app's (${row.checksum.slice(0, 12)}… recorded, ${expected.slice(0, 12)}… expected); the schema has drifted, restore from a backup`,
      );
    }
  }
  if (userVersion > latest) throw newerDatabase(file, `schema version ${userVersion}`);

  const appliedIds = new Set(applied.map((r) => r.id));
  const ordered = [...migrations].sort((a, b) => migrationNumber(a.id) - migrationNumber(b.id));
  const highestApplied = Math.max(0, ...applied.map((r) => migrationNumber(r.id)));
  for (const m of ordered) {
    if (!appliedIds.has(m.id) && migrationNumber(m.id) < highestApplied) {
      throw new SilasError(
        ErrorCode.Migration,
        `${file}: migration ${m.id} was never applied although later ones were; the database was altered outside Silas, restore it from a backup`,
      );
    }
  }

  const done: string[] = [];
  const insert = db.prepare('INSERT INTO applied_migrations (id, checksum, applied_at) VALUES (?, ?, ?)');
  for (const m of ordered) {
    if (appliedIds.has(m.id)) continue;
    const apply = db.transaction(() => {
      db.exec(m.sql);
      insert.run(m.id, migrationChecksum(m), now());
      db.pragma(`user_version = ${migrationNumber(m.id)}`);
    });
    apply.immediate();
    done.push(m.id);
  }
  return { applied: done, alreadyApplied: applied.length };
}

function newerDatabase(file: string, what: string): SilasError {
  return new SilasError(
    ErrorCode.DatabaseNewer,
    `${file} was written by a newer version of Silas (${what}); upgrade Silas, or point --home at another data directory`,
  );
}
