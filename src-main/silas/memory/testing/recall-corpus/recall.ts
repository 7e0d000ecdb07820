import { QUERY_KINDS, type QueryKind, type RecallCorpus, type RecallQuery } from './corpus.js';

/*
 * recall@k of a retriever over the labelled corpus (README.md): for each query, the share of its
 * relevant memories found among the first k ids the retriever returns, averaged over the queries,
 * overall and per kind. This is the measure of spec 002 §6.1–§6.3 retrieval quality: keyword,
 * semantic and merged recall on the same queries, and the paraphrase third, which keyword recall
 * cannot answer by construction.
 */

/** Anything that answers a query with corpus memory ids (`m012`), best first. */
export interface RecallRetriever {
  retrieve(query: string, k: number): Promise<string[]> | string[];
}

interface RecallMiss {
  query: RecallQuery;
  /** The relevant memories (the labels). */
  expected: string[];
  /** The first k distinct ids the retriever returned. */
  got: string[];
  /** |expected ∩ got| / |expected|, below 1. */
  recall: number;
}

export interface RecallReport {
  k: number;
  /** How many queries were asked. */
  queries: number;
  /** Mean recall@k over every query asked. */
  overall: number;
  /** Mean recall@k over the queries of each kind; NaN for a kind none of the asked queries has. */
  byKind: Record<QueryKind, number>;
  /** Every query with a relevant memory outside the first k, in corpus order. */
  misses: RecallMiss[];
}

const mean = (values: readonly number[]) => (values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length);

/**
 * Asks `retriever` every query of the corpus (of `kinds` only, when given), one at a time and in
 * corpus order, and scores the first k distinct ids of each answer. An id that names no memory of
 * the corpus is an error, not a miss: it means the retriever answers with ids of its store (map
 * them back first; `recall-repository.ts` does for a MemoryRepository).
 */
export async function recallAtK(corpus: RecallCorpus, retriever: RecallRetriever, k = 5, kinds?: readonly QueryKind[]): Promise<RecallReport> {
  if (!Number.isSafeInteger(k) || k < 1) throw new Error(`recallAtK: k must be a whole number of at least 1, got ${String(k)}`);
  const asked = corpus.queries.filter((query) => !kinds || kinds.includes(query.kind));
  if (asked.length === 0) throw new Error(`recallAtK: the corpus has no query of the kinds ${JSON.stringify(kinds)}; use ${QUERY_KINDS.join(', ')}`);
  const known = new Set(corpus.memories.map((memory) => memory.id));
  const scores = new Map<QueryKind, number[]>(QUERY_KINDS.map((kind) => [kind, []]));
  const all: number[] = [];
  const misses: RecallMiss[] = [];
  for (const query of asked) {
    const answer = await retriever.retrieve(query.text, k);
    if (!Array.isArray(answer)) throw new Error(`recallAtK: the retriever answered ${query.id} with ${typeof answer}, not an array of memory ids`);
    const unknown = answer.find((id) => !known.has(id));
    if (unknown !== undefined) {
      throw new Error(`recallAtK: the retriever answered ${query.id} with ${JSON.stringify(unknown)}, which is no memory of the corpus; return corpus ids such as m012`);
    }
    const got = [...new Set(answer)].slice(0, k);
    const recall = query.relevant.filter((id) => got.includes(id)).length / query.relevant.length;
    all.push(recall);
    scores.get(query.kind)!.push(recall);
    if (recall < 1) misses.push({ query, expected: [...query.relevant], got, recall });
  }
  const byKind = Object.fromEntries(QUERY_KINDS.map((kind) => [kind, mean(scores.get(kind)!)])) as Record<QueryKind, number>;
  return { k, queries: asked.length, overall: mean(all), byKind, misses };
}

/** One line for a test's or a bench's output: `keyword recall@5 0.612 (keyword 0.913, mixed 0.700, paraphrase 0.014; 199 queries)`. */
export function formatRecallReport(label: string, report: RecallReport): string {
  const kinds = QUERY_KINDS.filter((kind) => !Number.isNaN(report.byKind[kind])).map((kind) => `${kind} ${report.byKind[kind].toFixed(3)}`);
  return `${label} recall@${report.k} ${report.overall.toFixed(3)} (${kinds.join(', ')}; ${report.queries} queries)`;
}
