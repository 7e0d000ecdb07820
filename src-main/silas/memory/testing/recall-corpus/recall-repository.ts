import { MemoryRepository, type MemorySealer } from '../../../../store/repositories/memory.js';
import type { SqliteDatabase } from '../../../../store/transaction.js';
import type { RecallCorpus } from './corpus.js';
import type { RecallRetriever } from './recall.js';

/*
 * The recall corpus as Silas stores it: every memory in the active lane of one scope (spec 002
 * §4.2 `store`, the lane automatic recall reads, §5.1 step 4), written by the owner, at its
 * corpus `created_at`, so a temporal branch sees the times the corpus speaks of. Retrievers built
 * on the repository answer with stored ids; the maps here turn them back into corpus ids.
 */

export interface StoredRecallCorpus {
  repository: MemoryRepository;
  scope: string;
  /** Corpus id (`m012`) → the memory id the repository assigned. */
  storedId: ReadonlyMap<string, string>;
  /** The memory id the repository assigned → corpus id. */
  corpusId: ReadonlyMap<string, string>;
}

export interface StoreRecallCorpusOptions {
  /** One scope holds the whole corpus; `owner` (single-user mode) by default. */
  scope?: string;
}

/**
 * Stores every memory of `corpus` through a new MemoryRepository on `database`, oldest first (so
 * the repository's "newest first among equals" agrees with `created_at`). The repository's clock
 * reads each memory's `created_at` while it is stored, then stays at the corpus's reference time,
 * so what is written afterwards (access counts, updates) happens at the corpus's "now".
 */
export function storeRecallCorpus(database: SqliteDatabase, sealer: MemorySealer, corpus: RecallCorpus, options: StoreRecallCorpusOptions = {}): StoredRecallCorpus {
  const scope = options.scope ?? 'owner';
  let clock = new Date(corpus.referenceTime);
  const repository = new MemoryRepository(database, sealer, { now: () => clock });
  const storedId = new Map<string, string>();
  const corpusId = new Map<string, string>();
  const oldestFirst = [...corpus.memories].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  for (const memory of oldestFirst) {
    clock = new Date(memory.created_at);
    const id = repository.store(scope, {
      content: memory.content,
      memory_type: memory.memory_type,
      semantic_tags: memory.semantic_tags ?? [],
      taint: 'owner',
      source_kind: 'memory_op',
      token_count: Math.ceil(memory.content.length / 4),
    });
    storedId.set(memory.id, id);
    corpusId.set(id, memory.id);
  }
  clock = new Date(corpus.referenceTime);
  return { repository, scope, storedId, corpusId };
}

/**
 * A RecallRetriever over a search that answers with stored memory ids (the merged retriever, a
 * semantic index): its ids are mapped back to corpus ids. An id the corpus did not store is an
 * error naming it, never a silent miss.
 */
export function storedIdRetriever(stored: StoredRecallCorpus, search: (query: string, k: number) => Promise<string[]> | string[]): RecallRetriever {
  const toCorpus = (ids: string[]) =>
    ids.map((id) => {
      const corpusId = stored.corpusId.get(id);
      if (corpusId === undefined) throw new Error(`storedIdRetriever: memory ${id} was not stored from the corpus; search only the scope "${stored.scope}" it was stored in`);
      return corpusId;
    });
  return {
    retrieve: (query, k) => {
      const ids = search(query, k);
      return Array.isArray(ids) ? toCorpus(ids) : ids.then(toCorpus);
    },
  };
}

/** Keyword recall as the Stream's step 4 runs it today: FTS5 bm25 over the active lane (`MemoryRepository.search`). */
export function keywordRetriever(stored: StoredRecallCorpus): RecallRetriever {
  return storedIdRetriever(stored, (query, k) => stored.repository.search(stored.scope, query, { limit: k, tier: 'active' }).map((hit) => hit.item.memory_id));
}
