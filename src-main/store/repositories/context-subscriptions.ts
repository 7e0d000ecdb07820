import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/**
 * A conversation's context subscriptions (migration 026; spec 002 §3.5 ContextSubscription). The
 * rows are plain values with their seal; the seal is made and checked by
 * silas/context/sealed-subscriptions.ts, which never hands on a row that fails it.
 */

export interface SubscriptionRow {
  sub_id: string;
  scope_id: string;
  sub_type: string;
  target: string;
  zone: string;
  created_at: string;
  turn_created: number;
  content_hash: string;
  /** 1 or 0. */
  active: number;
  token_count: number;
  last_changed_turn: number | null;
  last_referenced_turn: number;
  stale_since_turn: number | null;
  note: string | null;
  seal: string | null;
}

const COLUMNS = [
  'sub_id',
  'scope_id',
  'sub_type',
  'target',
  'zone',
  'created_at',
  'turn_created',
  'content_hash',
  'active',
  'token_count',
  'last_changed_turn',
  'last_referenced_turn',
  'stale_since_turn',
  'note',
  'seal',
] as const;

/** Rows read per scope at most: more than a scope may hold, so a planted flood is cut short, not read whole. */
const MAX_ROWS_PER_SCOPE = 200;

export class ContextSubscriptionRepository {
  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    this.db = sqliteConnection(database);
  }

  /** Inserts or replaces the subscription's row. */
  save(row: SubscriptionRow, at: Date): void {
    const updates = COLUMNS.filter((column) => column !== 'sub_id')
      .map((column) => `${column} = excluded.${column}`)
      .join(', ');
    this.db
      .prepare(`INSERT INTO silas_context_subscriptions (${COLUMNS.join(', ')}, updated_at) VALUES (${COLUMNS.map(() => '?').join(', ')}, ?) ON CONFLICT(sub_id) DO UPDATE SET ${updates}, updated_at = excluded.updated_at`)
      .run(...COLUMNS.map((column) => row[column]), at.toISOString());
  }

  /** The scope's rows, oldest first. */
  forScope(scopeId: string): SubscriptionRow[] {
    return this.db.prepare(`SELECT ${COLUMNS.join(', ')} FROM silas_context_subscriptions WHERE scope_id = ? ORDER BY created_at, sub_id LIMIT ?`).all(scopeId, MAX_ROWS_PER_SCOPE) as SubscriptionRow[];
  }

  delete(scopeId: string, subId: string): void {
    this.db.prepare('DELETE FROM silas_context_subscriptions WHERE scope_id = ? AND sub_id = ?').run(scopeId, subId);
  }
}
