import { createHash } from 'node:crypto';
import type { MemoryConsolidationRepository, ScannedMemory } from '../../store/repositories/memory-consolidation.js';
import type { MemoryPromotionRepository } from '../../store/repositories/memory-promotions.js';
import type { BehaviorPreferences } from './behavior-preferences.js';

/*
 * The memory consolidator of spec 002 §4.2.2 and §6.4 (docs/silas/chronicle-and-memory.md
 * "Consolidation"), run on a schedule by the runtime: merge duplicates (same content, another
 * session), propose frequently recalled working memories for verification (a Review card: the owner
 * decides, §3.8), archive stale working memories into the raw lane, infer behavioural preferences
 * (§6.6), and let the re-embedding catch up with what changed. It never changes a verified or
 * constitutional memory, nor one whose seal does not hold. It reads the store in pages and yields
 * between them, so a run over a million memories never holds the event loop.
 */

export interface ConsolidatorConfig {
  /** A working memory never recalled for this long leaves the active lane (§6.4 item 4). */
  pruneAfterDays: number;
  /** Recalled this often, a working memory is proposed for verification (§6.4 items 1 and 3). */
  promoteAfterAccesses: number;
  /** Memories read per page; one page between two turns of the event loop. */
  pageSize: number;
}

const DEFAULT_CONSOLIDATOR_CONFIG: ConsolidatorConfig = { pruneAfterDays: 90, promoteAfterAccesses: 5, pageSize: 500 };

export interface ConsolidationStats {
  scanned: number;
  merged: number;
  promoted: number;
  pruned: number;
  reembedded: number;
  preferences: number;
}

export interface ConsolidatorDeps {
  store: MemoryConsolidationRepository;
  promotions: Pick<MemoryPromotionRepository, 'propose' | 'openFor' | 'wasDeclined'>;
  /** Vectors of merged or changed memories are refreshed by the background re-embedding. */
  semantic: { notify(): void; status(): { pending: number } };
  preferences?: Pick<BehaviorPreferences, 'infer'>;
  audit: { append(type: string, data: Record<string, unknown>): unknown };
  onPromotionsChanged: () => void;
  now: () => Date;
  config?: Partial<ConsolidatorConfig>;
}

export class MemoryConsolidator {
  private readonly config: ConsolidatorConfig;
  private running: Promise<ConsolidationStats> | null = null;

  constructor(private readonly deps: ConsolidatorDeps) {
    this.config = { ...DEFAULT_CONSOLIDATOR_CONFIG, ...deps.config };
  }

  /** §4.2.2 `run_once`: one cycle, with its counts; a second call while one runs joins it. */
  runOnce(signal?: AbortSignal): Promise<ConsolidationStats> {
    this.running ??= this.cycle(signal).finally(() => (this.running = null));
    return this.running;
  }

  private async cycle(signal?: AbortSignal): Promise<ConsolidationStats> {
    const stats: ConsolidationStats = { scanned: 0, merged: 0, promoted: 0, pruned: 0, reembedded: 0, preferences: 0 };
    const staleBefore = new Date(this.deps.now().getTime() - this.config.pruneAfterDays * 86_400_000).toISOString();
    // Scope and content hash → the first memory holding it (its row number is all a merge needs).
    const seen = new Map<string, { seq: number }>();
    let after = 0;
    for (;;) {
      signal?.throwIfAborted();
      const page = this.deps.store.page(after, this.config.pageSize);
      if (page.length === 0) break;
      after = page.at(-1)!.seq;
      for (const memory of page) {
        stats.scanned += 1;
        if (!memory.sealOk) continue;
        const key = `${memory.scopeId}\u0000${createHash('sha256').update(memory.content).digest('base64')}`;
        const first = seen.get(key);
        if (first && memory.trustLevel === 'working') {
          if (this.deps.store.merge(first, memory)) stats.merged += 1;
          continue;
        }
        if (!first) seen.set(key, { seq: memory.seq });
        if (memory.trustLevel !== 'working') continue;
        if ((memory.lastAccessed ?? memory.createdAt) < staleBefore && memory.accessCount < this.config.promoteAfterAccesses) {
          if (this.deps.store.archive(memory)) stats.pruned += 1;
          continue;
        }
        if (memory.accessCount >= this.config.promoteAfterAccesses && this.proposable(memory)) {
          this.deps.promotions.propose(memory.scopeId, memory.memoryId, 'the consolidator (recalled often)', `Silas recalled this ${memory.accessCount} times; verify it if it is right.`);
          stats.promoted += 1;
        }
      }
      // One page per turn of the event loop: a turn's own work never waits behind the whole store.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.deps.preferences) stats.preferences = await this.deps.preferences.infer();
    if (stats.promoted > 0 || stats.preferences > 0) this.deps.onPromotionsChanged();
    this.deps.semantic.notify();
    stats.reembedded = this.deps.semantic.status().pending;
    this.deps.audit.append('silas.memory.consolidated', { ...stats });
    return stats;
  }

  private proposable(memory: ScannedMemory): boolean {
    return this.deps.promotions.openFor(memory.scopeId, memory.memoryId) === null && !this.deps.promotions.wasDeclined(memory.scopeId, memory.memoryId);
  }
}
