import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/**
 * The conversation scopes of the Stream. Only a SHA-256 of a scope's resume key is stored, with
 * its ledger-key seal (migration 013); the Stream checks the seal and compares the hash in
 * constant time (silas/stream/sealed-stream-state.ts), so the database alone neither resumes a
 * conversation nor hands one to another key.
 */
export class StreamScopeRepository {
  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    this.db = sqliteConnection(database);
  }

  create(scopeId: string, keySha256: string, keySeal: string, at: Date): void {
    const now = at.toISOString();
    this.db.prepare('INSERT INTO silas_stream_scopes (scope_id, key_sha256, key_seal, created_at, last_used_at) VALUES (?, ?, ?, ?, ?)').run(scopeId, keySha256, keySeal, now, now);
  }

  /** The stored key hash and its seal, or null for an unknown scope. */
  keyOf(scopeId: string): { keySha256: string; keySeal: string | null } | null {
    const row = this.db.prepare('SELECT key_sha256, key_seal FROM silas_stream_scopes WHERE scope_id = ?').get(scopeId) as { key_sha256: string; key_seal: string | null } | undefined;
    return row === undefined ? null : { keySha256: row.key_sha256, keySeal: row.key_seal };
  }

  /** Records a resume. */
  touch(scopeId: string, at: Date): void {
    this.db.prepare('UPDATE silas_stream_scopes SET last_used_at = ? WHERE scope_id = ?').run(at.toISOString(), scopeId);
  }
}

/** Work the Stream dispatched and its last status (migrations 010, 013); `item_json` is the plan as it was asked for. */
export interface StreamWorkRecord {
  workItemId: string;
  scopeId: string;
  planHash: string;
  itemJson: string;
  status: string;
  /** Where the plan came from (channel and taint), JSON; null on rows written before migration 013. */
  originJson: string | null;
  /** The ledger-key seal over the fields above; null when the row was not written by Silas. */
  seal: string | null;
}

const FINAL_STATUSES = ['done', 'failed', 'blocked', 'declined', 'stuck', 'verification_failed'];

type WorkRow = { work_item_id: string; scope_id: string; plan_hash: string; item_json: string; status: string; origin_json: string | null; seal: string | null };

const toRecord = (row: WorkRow): StreamWorkRecord => ({
  workItemId: row.work_item_id,
  scopeId: row.scope_id,
  planHash: row.plan_hash,
  itemJson: row.item_json,
  status: row.status,
  originJson: row.origin_json,
  seal: row.seal,
});

const COLUMNS = 'work_item_id, scope_id, plan_hash, item_json, status, origin_json, seal';

export class StreamWorkRepository {
  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    this.db = sqliteConnection(database);
  }

  /** A (re)dispatched plan: a work item id proposed again replaces its old row. */
  record(work: StreamWorkRecord, at: Date): void {
    this.db
      .prepare(`INSERT INTO silas_stream_work (${COLUMNS}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(work_item_id) DO UPDATE SET scope_id = excluded.scope_id, plan_hash = excluded.plan_hash, item_json = excluded.item_json, status = excluded.status,
          origin_json = excluded.origin_json, seal = excluded.seal, updated_at = excluded.updated_at`)
      .run(work.workItemId, work.scopeId, work.planHash, work.itemJson, work.status, work.originJson, work.seal, at.toISOString());
  }

  get(workItemId: string): StreamWorkRecord | null {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM silas_stream_work WHERE work_item_id = ?`).get(workItemId) as WorkRow | undefined;
    return row === undefined ? null : toRecord(row);
  }

  /** Work that did not reach a final status, oldest first. */
  unfinished(): StreamWorkRecord[] {
    const rows = this.db
      .prepare(`SELECT ${COLUMNS} FROM silas_stream_work WHERE status NOT IN (${FINAL_STATUSES.map(() => '?').join(', ')}) ORDER BY updated_at`)
      .all(...FINAL_STATUSES) as WorkRow[];
    return rows.map(toRecord);
  }
}
