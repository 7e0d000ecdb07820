import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/** A row of `silas_work_items` (migration 006), undecoded: `silas/store` validates every read. */
export interface WorkItemRow {
  id: string;
  type: string;
  status: string;
  parent_id: string | null;
  follow_up_of: string | null;
  plan_hash: string;
  item_json: string;
  result_json: string | null;
  created_at: string;
}

export type WorkItemRowWrite = WorkItemRow & { updated_at: string };

/** The columns an item list may be selected by; never caller text, so the SQL stays fixed. */
export type WorkItemListColumn = 'status' | 'parent_id' | 'follow_up_of';

const LISTS: Record<WorkItemListColumn, string> = {
  status: 'SELECT * FROM silas_work_items WHERE status = ? ORDER BY created_at, id',
  parent_id: 'SELECT * FROM silas_work_items WHERE parent_id = ? ORDER BY created_at, id',
  follow_up_of: 'SELECT * FROM silas_work_items WHERE follow_up_of = ? ORDER BY created_at, id',
};

/**
 * Storage of work items. It runs no transaction of its own: `SqliteWorkItemStore` reads,
 * changes and writes a row, with its audit entries, inside one `BEGIN IMMEDIATE`.
 */
export class WorkItemRepository {
  private readonly selectOne;
  private readonly upsertStmt;

  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    const db = sqliteConnection(database);
    this.db = db;
    this.selectOne = db.prepare('SELECT * FROM silas_work_items WHERE id = ?');
    this.upsertStmt = db.prepare(`INSERT INTO silas_work_items
      (id, type, status, parent_id, follow_up_of, plan_hash, item_json, result_json, created_at, updated_at)
      VALUES (@id, @type, @status, @parent_id, @follow_up_of, @plan_hash, @item_json, @result_json, @created_at, @updated_at)
      ON CONFLICT(id) DO UPDATE SET status = excluded.status, parent_id = excluded.parent_id, follow_up_of = excluded.follow_up_of,
        plan_hash = excluded.plan_hash, item_json = excluded.item_json, result_json = excluded.result_json, updated_at = excluded.updated_at`);
  }

  get(id: string): WorkItemRow | null {
    return (this.selectOne.get(id) as WorkItemRow | undefined) ?? null;
  }

  /** Inserts the row, or updates everything but its type and creation time. */
  upsert(row: WorkItemRowWrite): void {
    this.upsertStmt.run(row);
  }

  listBy(column: WorkItemListColumn, key: string): WorkItemRow[] {
    return this.db.prepare(LISTS[column]).all(key) as WorkItemRow[];
  }
}
