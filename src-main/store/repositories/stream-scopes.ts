import { createHash, timingSafeEqual } from 'node:crypto';
import type { SqliteDatabase } from '../transaction.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The conversation scopes of the Stream. Only a SHA-256 of a scope's resume key is stored, and
 * `matches` compares in constant time, so the database alone resumes nothing.
 */
export class StreamScopeRepository {
  constructor(private readonly db: SqliteDatabase) {}

  create(scopeId: string, key: string, at: Date): void {
    const now = at.toISOString();
    this.db.prepare('INSERT INTO silas_stream_scopes (scope_id, key_sha256, created_at, last_used_at) VALUES (?, ?, ?, ?)').run(scopeId, sha256(key), now, now);
  }

  /** True when `scopeId` exists and `key` is its resume key; records the use. */
  matches(scopeId: string, key: string, at: Date): boolean {
    const row = this.db.prepare('SELECT key_sha256 FROM silas_stream_scopes WHERE scope_id = ?').get(scopeId) as { key_sha256: string } | undefined;
    if (row === undefined) return false;
    const expected = Buffer.from(row.key_sha256, 'hex');
    const given = Buffer.from(sha256(key), 'hex');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
    this.db.prepare('UPDATE silas_stream_scopes SET last_used_at = ? WHERE scope_id = ?').run(at.toISOString(), scopeId);
    return true;
  }


}

/** Work the Stream dispatched and its last status (migration 010); `item_json` is the plan as it was asked for. */
export interface StreamWorkRecord {
  workItemId: string;
  scopeId: string;
  planHash: string;
  itemJson: string;
  status: string;
}

const FINAL_STATUSES = ['done', 'failed', 'blocked', 'declined', 'stuck', 'verification_failed'];

export class StreamWorkRepository {
  constructor(private readonly db: SqliteDatabase) {}

  /** A (re)dispatched plan: a work item id proposed again replaces its old row. */
  record(work: Omit<StreamWorkRecord, 'status'>, status: string, at: Date): void {
    this.db
      .prepare(`INSERT INTO silas_stream_work (work_item_id, scope_id, plan_hash, item_json, status, updated_at) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT(work_item_id) DO UPDATE SET scope_id = excluded.scope_id, plan_hash = excluded.plan_hash, item_json = excluded.item_json, status = excluded.status, updated_at = excluded.updated_at`)
      .run(work.workItemId, work.scopeId, work.planHash, work.itemJson, status, at.toISOString());
  }

  setStatus(workItemId: string, status: string, at: Date): void {
    this.db.prepare('UPDATE silas_stream_work SET status = ?, updated_at = ? WHERE work_item_id = ?').run(status, at.toISOString(), workItemId);
  }

  /** Work that did not reach a final status, oldest first. */
  unfinished(): StreamWorkRecord[] {
    const rows = this.db
      .prepare(`SELECT work_item_id, scope_id, plan_hash, item_json, status FROM silas_stream_work WHERE status NOT IN (${FINAL_STATUSES.map(() => '?').join(', ')}) ORDER BY updated_at`)
      .all(...FINAL_STATUSES) as { work_item_id: string; scope_id: string; plan_hash: string; item_json: string; status: string }[];
    return rows.map((row) => ({ workItemId: row.work_item_id, scopeId: row.scope_id, planHash: row.plan_hash, itemJson: row.item_json, status: row.status }));
  }
}
