import { homePaths } from '../home/paths.js';
import { openDatabase, quickCheck } from '../store/database.js';
import type { Ledger } from './ledger.js';

// `silas doctor` checks the database file; the connection stays here and in store/, so the
// command holds no database handle of its own (docs/architecture.md §3).

/** SQLite's quick_check of an open ledger's database: 'ok', or what is damaged. */
export function ledgerIntegrity(ledger: Ledger): string {
  return quickCheck(ledger.db);
}

/**
 * The same check on a home's database opened without the keyring, for when the keyring is out of
 * reach: only the file is checked, nothing read from it is trusted. Throws when it cannot be
 * opened (missing, newer than this Silas, not a Silas database), with the reason.
 */
export function homeDatabaseIntegrity(home: string): string {
  const { db } = openDatabase(homePaths(home).database, { create: false, home });
  try {
    return quickCheck(db);
  } finally {
    db.close();
  }
}
