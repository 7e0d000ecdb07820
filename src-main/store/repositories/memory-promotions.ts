import { randomUUID } from 'node:crypto';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { sqliteConnection, type SqliteDatabase } from '../transaction.js';

/*
 * Requests to verify a working memory (spec 002 §3.8, §6.4 item 3, §6.6 item 3; migration 025).
 * A request is shown as a `memory_promotion` card; only the owner's signed decision on that card
 * changes the memory (review/kinds/memory-promotion.ts). At most one open request per memory.
 */

export type PromotionStatus = 'proposed' | 'promoted' | 'declined' | 'withdrawn';

export interface MemoryPromotion {
  id: string;
  scopeId: string;
  memoryId: string;
  requestedBy: string;
  reason: string;
  status: PromotionStatus;
  requestedAt: string;
  decidedAt: string | null;
}

interface Row {
  id: string;
  scope_id: string;
  memory_id: string;
  requested_by: string;
  reason: string;
  status: PromotionStatus;
  requested_at: string;
  decided_at: string | null;
}

/** Open requests shown at once: Review is for a person, not a backlog. */
const MAX_OPEN = 200;

export class MemoryPromotionRepository {
  private readonly s;

  constructor(database: SqliteDatabase, private readonly now: () => Date = () => new Date()) {
    const db = sqliteConnection(database);
    this.s = {
      insert: db.prepare(`INSERT INTO silas_memory_promotions (id, scope_id, memory_id, requested_by, reason, status, requested_at)
        VALUES (@id, @scope_id, @memory_id, @requested_by, @reason, 'proposed', @requested_at) ON CONFLICT DO NOTHING`),
      open: db.prepare(`SELECT * FROM silas_memory_promotions WHERE status = 'proposed' ORDER BY seq LIMIT ${MAX_OPEN}`),
      openFor: db.prepare("SELECT * FROM silas_memory_promotions WHERE status = 'proposed' AND scope_id = ? AND memory_id = ?"),
      byId: db.prepare('SELECT * FROM silas_memory_promotions WHERE id = ?'),
      declined: db.prepare("SELECT 1 FROM silas_memory_promotions WHERE scope_id = ? AND memory_id = ? AND status = 'declined' LIMIT 1"),
      decide: db.prepare("UPDATE silas_memory_promotions SET status = @status, decided_at = @decided_at WHERE id = @id AND status = 'proposed'"),
    };
  }

  /** Asks to verify a memory; an open request for it is returned instead of a second one. */
  propose(scopeId: string, memoryId: string, requestedBy: string, reason: string): MemoryPromotion {
    const existing = this.openFor(scopeId, memoryId);
    if (existing) return existing;
    const id = `memory-promotion-${randomUUID()}`;
    this.s.insert.run({ id, scope_id: scopeId, memory_id: memoryId, requested_by: requestedBy.slice(0, 200), reason: reason.slice(0, 1000), requested_at: this.now().toISOString() });
    const stored = this.get(id) ?? this.openFor(scopeId, memoryId);
    if (!stored) throw new SilasError(ErrorCode.Database, `the promotion request for memory ${memoryId} was not stored`);
    return stored;
  }

  open(): MemoryPromotion[] {
    return (this.s.open.all() as Row[]).map(fromRow);
  }

  openFor(scopeId: string, memoryId: string): MemoryPromotion | null {
    const row = this.s.openFor.get(scopeId, memoryId) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** The owner kept this memory unverified before: the consolidator does not ask again. */
  wasDeclined(scopeId: string, memoryId: string): boolean {
    return this.s.declined.get(scopeId, memoryId) !== undefined;
  }

  get(id: string): MemoryPromotion | null {
    const row = this.s.byId.get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** Closes an open request; false when it was not open (decided already, or unknown). */
  close(id: string, status: Exclude<PromotionStatus, 'proposed'>): boolean {
    return this.s.decide.run({ id, status, decided_at: this.now().toISOString() }).changes === 1;
  }
}

function fromRow(row: Row): MemoryPromotion {
  return {
    id: row.id,
    scopeId: row.scope_id,
    memoryId: row.memory_id,
    requestedBy: row.requested_by,
    reason: row.reason,
    status: row.status,
    requestedAt: row.requested_at,
    decidedAt: row.decided_at,
  };
}
