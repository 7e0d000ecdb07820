import type { AuditLog } from '../audit/audit-log.js';
import type { StateSeals } from '../keys/sealed-state.js';
import type { Embedder } from '../silas/memory/embedding/embedder.js';
import { memorySealer } from '../silas/memory/memory-seals.js';
import { BehaviorPreferences, type BehaviorSignal } from '../silas/memory/behavior-preferences.js';
import { ConsolidationSchedule } from '../silas/memory/consolidation-schedule.js';
import { MemoryConsolidator } from '../silas/memory/consolidator.js';
import { MemoryService } from '../silas/memory/memory-service.js';
import { MemoryExports } from '../silas/memory/cockpit-export.js';
import { MemoryImports } from '../silas/memory/cockpit-import.js';
import { SqliteMemoryPortability } from '../silas/memory/portability.js';
import { openMemoryReader } from '../store/repositories/memory-bundle.js';
import { MemoryRetriever } from '../silas/memory/retriever.js';
import { SemanticMemory } from '../silas/memory/semantic-memory.js';
import { MemoryRepository } from '../store/repositories/memory.js';
import { MemoryConsolidationRepository } from '../store/repositories/memory-consolidation.js';
import { MemoryPromotionRepository } from '../store/repositories/memory-promotions.js';
import { MemoryVectorIndex } from '../store/repositories/memory-vectors.js';
import type { SqliteDatabase } from '../store/transaction.js';
import { join } from 'node:path';
import { vectorSupport } from '../store/vector-extension.js';

/*
 * Silas memory wired on the runtime's ledger (docs/architecture.md §4.4: app/ composes; spec 002
 * §6.1–§6.3): the sealed memory store, the vector index when sqlite-vec loads, the embedder and its
 * background re-embedding, and the retriever the Stream recalls through. Recall by meaning starts
 * in the background; until it is ready, recall is keyword and temporal only.
 */

export interface MemoryCompositionDeps {
  db: SqliteDatabase;
  /** The data home: the Memory page's imports are uploaded under it (HOME/memory-imports, 0700). */
  home: string;
  seals: StateSeals;
  audit: Pick<AuditLog, 'append'>;
  /** The configured embedder (HOME/models.json `embedding`), else the local word vectors. */
  embedder: () => Promise<Embedder>;
  now: () => Date;
  /** Automatic recall's similarity floor for semantic hits. */
  minSimilarity?: number;
  counter: { count(text: string): number };
  /** A promotion was asked for: the decision queue shows its card. */
  onPromotionsChanged: () => void;
  /** The owner's recent decisions, for behavioural preferences (§6.6); none by default. */
  behaviorSignals?: () => BehaviorSignal[];
  /** The consolidator's croner pattern (§6.4: every 30 minutes by default). */
  consolidationPattern?: string;
}

export interface MemoryComposition {
  memory: MemoryRepository;
  retriever: MemoryRetriever;
  semantic: SemanticMemory;
  /** The Memory page's service, and the source of `memory_promotion` cards. */
  service: MemoryService;
  consolidator: MemoryConsolidator;
  /** Started and stopped with the runtime. */
  schedule: ConsolidationSchedule;
  /** Export and import from the Memory page (docs/silas/memory-portability.md "From the cockpit"); closed with the runtime. */
  exports: MemoryExports;
  imports: MemoryImports;
}

export function composeMemory(deps: MemoryCompositionDeps): MemoryComposition {
  const memory = new MemoryRepository(deps.db, memorySealer(deps.seals), { now: deps.now });
  const support = vectorSupport(deps.db);
  const semantic = new SemanticMemory({
    index: support.ok ? new MemoryVectorIndex(deps.db, deps.now) : null,
    ...(support.ok ? {} : { unavailable: support.reason }),
    embedder: deps.embedder,
    audit: deps.audit,
  });
  if (!support.ok) deps.audit.append('silas.memory.embedder_failed', { reason: support.reason.slice(0, 500) });
  const retriever = new MemoryRetriever(memory, semantic, { now: deps.now, ...(deps.minSimilarity !== undefined ? { minSimilarity: deps.minSimilarity } : {}) });
  const promotions = new MemoryPromotionRepository(deps.db, deps.now);
  const service = new MemoryService({ memory, retriever, semantic, promotions, audit: deps.audit, counter: deps.counter, onPromotionsChanged: deps.onPromotionsChanged });
  const preferences = new BehaviorPreferences({ signals: deps.behaviorSignals ?? (() => []), memory, promotions, counter: deps.counter });
  const consolidator = new MemoryConsolidator({
    store: new MemoryConsolidationRepository(deps.db, memorySealer(deps.seals), deps.now),
    promotions,
    semantic,
    preferences,
    audit: deps.audit,
    onPromotionsChanged: deps.onPromotionsChanged,
    now: deps.now,
  });
  const schedule = new ConsolidationSchedule(consolidator, deps.audit, deps.consolidationPattern);
  // The CLI's portability on the runtime's connection and seals: an import from the cockpit is checked,
  // written, sealed and recorded exactly as `silas memory import` does it.
  const portability = new SqliteMemoryPortability({ db: deps.db, seals: deps.seals, audit: deps.audit, now: deps.now });
  const exports = new MemoryExports({ openReader: () => openMemoryReader(deps.db.name), seals: deps.seals, audit: deps.audit, now: deps.now });
  const imports = new MemoryImports({ portability, dir: join(deps.home, 'memory-imports'), now: deps.now });
  return { memory, retriever, semantic, service, consolidator, schedule, exports, imports };
}
