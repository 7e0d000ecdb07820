import { inImmediateTransaction, sqliteConnection, type SqliteDatabase } from '../transaction.js';
import { sealedFields, type MemorySealer } from './memory.js';

/*
 * The statements the memory consolidator needs (spec 002 §4.2.2, §6.4; docs/silas/
 * chronicle-and-memory.md "Consolidation"): a scan of the active lane in pages by row number, so a
 * run over a million memories never holds the event loop; merging a duplicate into the memory it
 * repeats; and archiving a stale memory into the raw lane, where it stays for an explicit search
 * (nothing is deleted). Both writes touch only working memory, checked in the same statement, and
 * re-seal the row they change.
 */

export interface ScannedMemory {
  seq: number;
  memoryId: string;
  scopeId: string;
  content: string;
  trustLevel: string;
  accessCount: number;
  lastAccessed: string | null;
  createdAt: string;
  sealOk: boolean;
}

export class MemoryConsolidationRepository {
  private readonly s;
  private readonly db;

  constructor(database: SqliteDatabase, private readonly sealer: MemorySealer, private readonly now: () => Date = () => new Date()) {
    const db = sqliteConnection(database);
    this.db = db;
    this.s = {
      page: db.prepare(`SELECT seq, memory_id, scope_id, content, memory_type, reingestion_tier, trust_level, taint, source_kind, access_count, last_accessed, created_at, seal
        FROM silas_memory_items WHERE reingestion_tier = 'active' AND seq > ? ORDER BY seq LIMIT ?`),
      row: db.prepare(`SELECT memory_id, scope_id, content, memory_type, reingestion_tier, trust_level, taint, source_kind, access_count, seal FROM silas_memory_items WHERE seq = ?`),
      addAccess: db.prepare(`UPDATE silas_memory_items SET access_count = access_count + @count,
        last_accessed = CASE WHEN last_accessed IS NULL OR last_accessed < @last THEN @last ELSE last_accessed END WHERE seq = @seq`),
      drop: db.prepare("DELETE FROM silas_memory_items WHERE seq = ? AND trust_level = 'working'"),
      archive: db.prepare(`UPDATE silas_memory_items SET reingestion_tier = 'low_reingestion', updated_at = @updated_at, seal = @seal
        WHERE seq = @seq AND trust_level = 'working' AND reingestion_tier = 'active'`),
    };
  }

  /** The next page of active memories after `afterSeq`, oldest first, each with whether its seal holds. */
  page(afterSeq: number, limit: number): ScannedMemory[] {
    return (this.s.page.all(afterSeq, limit) as Record<string, unknown>[]).map((row) => ({
      seq: row.seq as number,
      memoryId: row.memory_id as string,
      scopeId: row.scope_id as string,
      content: row.content as string,
      trustLevel: row.trust_level as string,
      accessCount: row.access_count as number,
      lastAccessed: (row.last_accessed as string | null) ?? null,
      createdAt: row.created_at as string,
      sealOk: this.sealer.check(row.memory_id as string, sealedFields(row), (row.seal as string | null) ?? null),
    }));
  }

  /** §6.4 item 2: the duplicate (working) goes, its recall count joins the memory it repeats. False when it changed meanwhile. */
  merge(keep: { seq: number }, duplicate: ScannedMemory): boolean {
    return inImmediateTransaction(this.db, () => {
      const current = this.s.row.get(duplicate.seq) as Record<string, unknown> | undefined;
      if (!current || current.content !== duplicate.content || current.trust_level !== 'working') return false;
      if (this.s.drop.run(duplicate.seq).changes !== 1) return false;
      if (duplicate.accessCount > 0) this.s.addAccess.run({ seq: keep.seq, count: duplicate.accessCount, last: duplicate.lastAccessed ?? duplicate.createdAt });
      return true;
    });
  }

  /** §6.4 item 4: a stale working memory leaves the active lane for the raw lane (kept, searchable explicitly). */
  archive(memory: ScannedMemory): boolean {
    return inImmediateTransaction(this.db, () => {
      const current = this.s.row.get(memory.seq) as Record<string, unknown> | undefined;
      if (!current || current.trust_level !== 'working') return false;
      // Never re-seal a row whose seal does not hold: that would launder a planted row into a trusted one.
      if (!this.sealer.check(current.memory_id as string, sealedFields(current), (current.seal as string | null) ?? null)) return false;
      const moved = { ...current, reingestion_tier: 'low_reingestion' };
      return this.s.archive.run({ seq: memory.seq, updated_at: this.now().toISOString(), seal: this.sealer.seal(current.memory_id as string, sealedFields(moved)) }).changes === 1;
    });
  }
}
