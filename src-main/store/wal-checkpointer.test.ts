import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp.js';
import { openDatabase } from './database.js';
import { sqliteConnection } from './transaction.js';
import { WalCheckpointer } from './wal-checkpointer.js';

const tempDir = useTempDirs('silas-wal-checkpointer-');

function open() {
  const file = join(tempDir(), 'silas.db');
  const { db } = openDatabase(file, { create: true });
  const sql = sqliteConnection(db);
  sql.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  return { db, sql, file };
}

/** About 6 MB through the log, in many small commits as the runtime writes. */
function write(sql: ReturnType<typeof sqliteConnection>) {
  const insert = sql.prepare('INSERT INTO filler (body) VALUES (?)');
  for (let i = 0; i < 1_500; i += 1) insert.run(Buffer.alloc(4_000, i % 251));
}

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

describe('WalCheckpointer: the log is copied into the database by a worker thread, not by the committing runtime', () => {
  it('turns the connection\'s own checkpoints off while the worker copies the log, and back on when it stops', async () => {
    const { db, sql, file } = open();
    const checkpoints: number[] = [];
    const checkpointer = new WalCheckpointer(db, file, { delayMs: 0, intervalMs: 50, onCheckpoint: ({ checkpointed }) => checkpoints.push(checkpointed) });
    const before = statSync(file).size;
    checkpointer.start();
    expect(sql.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    write(sql);
    // The database file grows only by checkpoints: here the worker's, since the connection makes none.
    await until(() => statSync(file).size > before + 4_000_000 && checkpoints.some((pages) => pages > 0), 'the worker to copy the log into the database');
    await checkpointer.stop();
    expect(sql.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    sql.close();
  });

  it('checkpoints on the connection as before when the worker cannot start or stops, so the log never grows without bound', async () => {
    const { db, sql, file } = open();
    const fallbacks: string[] = [];
    const missing = new WalCheckpointer(db, file, { delayMs: 0, workerUrl: new URL('file:///nonexistent/wal-checkpoint-worker.js'), onFallback: (reason) => fallbacks.push(reason) });
    missing.start();
    expect(sql.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(fallbacks).toEqual([expect.stringContaining('missing from this build')]);

    // A worker that dies: the connection takes the checkpoints back.
    const dying = new WalCheckpointer(db, join(tempDir(), 'not-a-database.db'), { delayMs: 0, intervalMs: 20, onFallback: (reason) => fallbacks.push(reason) });
    dying.start();
    await until(() => fallbacks.length === 2, 'the worker to fail');
    expect(sql.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await dying.stop();
    sql.close();
  });
});
