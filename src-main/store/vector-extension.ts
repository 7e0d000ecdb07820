import { createRequire } from 'node:module';
import { sqliteConnection, type SqliteDatabase } from './transaction.js';

/*
 * sqlite-vec, the loadable SQLite extension behind recall by meaning (spec 002 §6.1). Its npm
 * package ships the extension for each platform. It is loaded into every connection the runtime
 * opens (store/database.ts), so the vec0 table is readable wherever the memory is; a platform
 * without the extension keeps working with keyword recall, and says why once.
 */

export type VectorSupport = { ok: true; version: string } | { ok: false; reason: string };

const support = new WeakMap<object, VectorSupport>();
const require = createRequire(import.meta.url);

/** Loads sqlite-vec into the connection; never throws (a failure is remembered and reported by `vectorSupport`). */
function loadVectorExtension(database: SqliteDatabase): VectorSupport {
  const db = sqliteConnection(database);
  let result: VectorSupport;
  try {
    const sqliteVec = require('sqlite-vec') as { getLoadablePath(): string };
    db.loadExtension(sqliteVec.getLoadablePath());
    result = { ok: true, version: String(db.prepare('SELECT vec_version()').pluck().get()) };
  } catch (error) {
    result = {
      ok: false,
      reason: `the sqlite-vec extension could not be loaded on this platform (${error instanceof Error ? error.message.slice(0, 200) : String(error)}); reinstall with \`npm install\` so its platform package is present. Keyword recall still works.`,
    };
  }
  support.set(database, result);
  return result;
}

export function vectorSupport(database: SqliteDatabase): VectorSupport {
  return support.get(database) ?? loadVectorExtension(database);
}
