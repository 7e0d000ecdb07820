import type { MemoryQuery } from '../../../src-shared/silas/agents.js';
import type { MemoryItem } from '../../../src-shared/silas/memory.js';
import type { MemoryHit, MemoryRepository } from '../../store/repositories/memory.js';
import type { SemanticMemory } from './semantic-memory.js';
import { contentWords } from './stopwords.js';
import { timeWindowOf } from './time-window.js';

/*
 * The multi-graph retriever of spec 002 §4.2.1 and §6.3: keyword (FTS5), semantic (sqlite-vec)
 * and temporal results of one scope's ACTIVE lane, merged with dedupe and one relevance score.
 * The raw lane is reached only by `searchRaw`, which nothing renders into a prompt (§6.1).
 *
 * Merging is reciprocal-rank fusion: each branch ranks its own hits, and a memory scores the sum of
 * 1/(K + rank) over the branches that found it. Ranks, not raw scores, because bm25, cosine
 * similarity and recency are not on one scale; a memory two branches agree on rises above one
 * only a single branch found. docs/silas/chronicle-and-memory.md "Merged recall".
 */

type RecallBranch = 'keyword' | 'semantic' | 'temporal' | 'session';

export interface RecalledMemory extends MemoryHit {
  via: RecallBranch[];
}

export interface RetrieverOptions {
  /** Automatic recall injects a semantic hit only this similar or more (the nearest memory is not always related). */
  minSimilarity?: number;
  now?: () => Date;
}

const FUSION_K = 10;

/** Each branch is read this many times deeper than the answer, so fusion has something to agree on. */
const DEPTH = 3;
const MAX_DEPTH = 100;

export class MemoryRetriever {
  private readonly now: () => Date;
  private readonly minSimilarity: number;

  constructor(
    private readonly memory: MemoryRepository,
    private readonly semantic: Pick<SemanticMemory, 'search'> | null,
    options: RetrieverOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.minSimilarity = options.minSimilarity ?? 0.5;
  }

  /**
   * §5.1 step 4: what the message recalls on its own. The keyword branch reads only the message's
   * content words (function words alone recall nothing), semantic hits
   * count only above the similarity floor,
   * and the temporal branch only when the message names a time.
   */
  async recall(scopeId: string, text: string, limit: number): Promise<RecalledMemory[]> {
    if (limit === 0) return [];
    const depth = Math.min(MAX_DEPTH, limit * DEPTH);
    // Unranked hits stay: they hold a content word that is merely frequent (the raw lane shares the
    // FTS statistics, so a word the person keeps using soon counts as common).
    const keyword = this.memory.search(scopeId, contentWords(text), { limit: depth, tier: 'active' });
    const semantic = await this.semanticHits(scopeId, text, depth, this.minSimilarity);
    const window = timeWindowOf(text, this.now());
    const temporal = window ? this.memory.createdBetween(scopeId, window, { limit: depth, tier: 'active' }).map(unranked) : [];
    return fuse({ keyword, semantic, temporal }, limit);
  }

  /**
   * §4.2.1 `retrieve` for a MemoryQuery of the agent (§5.1 step 9), active lane only. `semantic`
   * falls back to keyword while the embedder is not ready; `session` reads the conversation's own
   * memories (its scope id is the session id) ranked by the query's words within them.
   */
  async retrieve(scopeId: string, query: Pick<MemoryQuery, 'strategy' | 'query' | 'max_results'>, context: { sessionId: string | null }): Promise<RecalledMemory[]> {
    const limit = Math.min(query.max_results, MAX_DEPTH);
    const depth = Math.min(MAX_DEPTH, limit * DEPTH);
    switch (query.strategy) {
      case 'keyword':
        return fuse({ keyword: this.memory.search(scopeId, query.query, { limit, tier: 'active' }) }, limit);
      case 'semantic': {
        const semantic = await this.semanticHits(scopeId, query.query, depth, -1);
        if (semantic.length > 0) return fuse({ semantic, keyword: this.memory.search(scopeId, query.query, { limit: depth, tier: 'active' }).filter((hit) => hit.bm25 !== null) }, limit);
        return fuse({ keyword: this.memory.search(scopeId, query.query, { limit, tier: 'active' }) }, limit);
      }
      case 'temporal': {
        const window = timeWindowOf(query.query, this.now()) ?? { from: new Date(this.now().getTime() - 7 * 86_400_000), to: this.now() };
        const inWindow = this.memory.createdBetween(scopeId, window, { limit: MAX_DEPTH, tier: 'active' });
        const ids = new Set(inWindow.map((item) => item.memory_id));
        const keyword = this.memory.search(scopeId, query.query, { limit: MAX_DEPTH, tier: 'active' }).filter((hit) => ids.has(hit.item.memory_id));
        return fuse({ keyword, temporal: inWindow.map(unranked) }, limit);
      }
      case 'session': {
        if (context.sessionId === null) return [];
        const inSession = this.memory.searchSession(scopeId, context.sessionId, { limit: MAX_DEPTH, tier: 'active' });
        const ids = new Set(inSession.map((item) => item.memory_id));
        const keyword = this.memory.search(scopeId, query.query, { limit: MAX_DEPTH, tier: 'active' }).filter((hit) => ids.has(hit.item.memory_id));
        return fuse({ keyword, session: inSession.map(unranked) }, limit);
      }
    }
  }

  /** §4.2 `search_raw`: the raw lane, asked for explicitly (the Memory page, the CLI); never a prompt's. */
  searchRaw(scopeId: string, text: string, limit: number): MemoryHit[] {
    return this.memory.search(scopeId, text, { limit: Math.min(limit, MAX_DEPTH), tier: 'low_reingestion' });
  }

  private async semanticHits(scopeId: string, text: string, depth: number, floor: number): Promise<MemoryHit[]> {
    if (!this.semantic) return [];
    const nearest = (await this.semantic.search(scopeId, text, depth)).filter((hit) => hit.similarity >= floor);
    const items = this.memory.bySeqs(scopeId, nearest.map((hit) => hit.seq));
    return nearest.flatMap((hit) => {
      const item = items.get(hit.seq);
      return item ? [{ item, bm25: null, relevance: Math.max(0, hit.similarity) }] : [];
    });
  }
}

function unranked(item: MemoryItem): MemoryHit {
  return { item, bm25: null, relevance: 0 };
}

/** Reciprocal-rank fusion of the branches' ranked lists, deduplicated by memory id. */
function fuse(branches: Partial<Record<RecallBranch, readonly MemoryHit[]>>, limit: number): RecalledMemory[] {
  const merged = new Map<string, { hit: MemoryHit; score: number; via: RecallBranch[] }>();
  const used = Object.entries(branches).filter(([, hits]) => hits && hits.length > 0) as [RecallBranch, readonly MemoryHit[]][];
  for (const [branch, hits] of used) {
    hits.forEach((hit, rank) => {
      const entry = merged.get(hit.item.memory_id) ?? { hit, score: 0, via: [] };
      entry.score += 1 / (FUSION_K + rank + 1);
      entry.via.push(branch);
      if (entry.hit.bm25 === null && hit.bm25 !== null) entry.hit = { ...entry.hit, bm25: hit.bm25 };
      merged.set(hit.item.memory_id, entry);
    });
  }
  // The best a memory can score is first in every branch used: relevance is the share of that.
  const best = used.length / (FUSION_K + 1);
  return [...merged.values()]
    .sort((a, b) => b.score - a.score || b.hit.item.created_at.localeCompare(a.hit.item.created_at))
    .slice(0, limit)
    .map(({ hit, score, via }) => ({ item: hit.item, bm25: hit.bm25, relevance: best > 0 ? score / best : 0, via }));
}
