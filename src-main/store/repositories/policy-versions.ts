import { inImmediateTransaction, sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/** One saved version of a policy file (migration 011). */
export interface PolicyVersionRow {
  id: number;
  path: string;
  seq: number;
  text: string;
  textSha256: string;
  policyHash: string;
  signer: string;
  action: 'save' | 'restore' | 'adopt';
  savedAt: string;
  /** The owner's seal over the row (kind 'policy-version'); null for versions saved before seals (migration 015). */
  seal: string | null;
}

interface Row {
  id: number;
  path: string;
  seq: number;
  text: string;
  text_sha256: string;
  policy_hash: string;
  signer: string;
  action: 'save' | 'restore' | 'adopt';
  saved_at: string;
  seal: string | null;
}

const fromRow = (row: Row): PolicyVersionRow => ({
  id: row.id,
  path: row.path,
  seq: row.seq,
  text: row.text,
  textSha256: row.text_sha256,
  policyHash: row.policy_hash,
  signer: row.signer,
  action: row.action,
  savedAt: row.saved_at,
  seal: row.seal,
});

/** The history of every policy file the cockpit saved: append-only, numbered per file. */
export class PolicyVersionRepository {
  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    this.db = sqliteConnection(database);
  }

  /**
   * Appends the next version of `path` (its seq is one more than the last), sealed by `sealOf`
   * once its seq is known, in the same transaction; returns it.
   */
  append(version: Omit<PolicyVersionRow, 'id' | 'seq' | 'seal'>, sealOf: (row: Omit<PolicyVersionRow, 'id' | 'seal'>) => string): PolicyVersionRow {
    return inImmediateTransaction(this.db, () => {
      const last = this.db.prepare('SELECT max(seq) FROM policy_versions WHERE path = ?').pluck().get(version.path) as number | null;
      const seq = (last ?? 0) + 1;
      const seal = sealOf({ ...version, seq });
      const info = this.db
        .prepare('INSERT INTO policy_versions (path, seq, text, text_sha256, policy_hash, signer, action, saved_at, seal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(version.path, seq, version.text, version.textSha256, version.policyHash, version.signer, version.action, version.savedAt, seal);
      return { ...version, id: Number(info.lastInsertRowid), seq, seal };
    });
  }

  /** Newest first, at most `limit`. */
  list(path: string, limit: number): PolicyVersionRow[] {
    return (this.db.prepare('SELECT * FROM policy_versions WHERE path = ? ORDER BY seq DESC LIMIT ?').all(path, limit) as Row[]).map(fromRow);
  }

  get(id: number): PolicyVersionRow | null {
    const row = this.db.prepare('SELECT * FROM policy_versions WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  count(path: string): number {
    return this.db.prepare('SELECT count(*) FROM policy_versions WHERE path = ?').pluck().get(path) as number;
  }

  latest(path: string): PolicyVersionRow | null {
    const row = this.db.prepare('SELECT * FROM policy_versions WHERE path = ? ORDER BY seq DESC LIMIT 1').get(path) as Row | undefined;
    return row ? fromRow(row) : null;
  }
}
