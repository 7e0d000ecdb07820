import type { IlpEpisode, IlpEpisodeRepository, IlpEpisodeRow } from '../../store/repositories/ilp-episodes.js';
import { MAX_QUERY_WORDS, jaccard, queryHash, queryWords } from './query-text.js';
import { answersFromCache, decayWeight, type MemorySettings } from './settings.js';

/*
 * Finding episodes by query (spec 004 §9.2 item 3; docs/ilp.md "Attention and episodic memory").
 * The word index only proposes rows: similarity is computed again from each row's own query, and
 * a row answers only once its seal holds. Each lookup reads a bounded number of rows; a miss is
 * always safe (the agents answer), a scan of the whole memory on the runtime's loop is not.
 */

export interface SimilarEpisode {
  episode: IlpEpisode;
  /** Jaccard index of the two queries' words. */
  similarity: number;
}

export interface CachedAnswer extends SimilarEpisode {
  /** `same-query`: the same normalised text (hash); `similar`: Jaccard at or above the threshold. */
  match: 'same-query' | 'similar';
  /** The episode's decayed weight now. */
  weight: number;
}

/** Rows one cache lookup reads at most. */
const CACHE_CANDIDATES = 256;
/**
 * Index postings one cache lookup reads at most: a query whose rarest words are each in thousands
 * of episodes is answered only by its own episode (a miss is safe; a long read on the loop is not).
 */
const CACHE_POSTINGS = 5000;
/** Rows, and index postings, one similarity search reads at most. */
const SIMILAR_CANDIDATES = 1000;
const SIMILAR_POSTINGS = 20_000;

/**
 * §9.2 item 3: the stored answer for `query`, or null. The query's own episode decides when its
 * seal holds: it answers if it succeeded, was confident and has not expired, and otherwise nothing
 * does (its latest answer is the best evidence there is). Without one, the most similar episode
 * (Jaccard ≥ the threshold) that passes the same rule answers.
 *
 * Similar rows are found by prefix filtering. Jaccard ≥ t needs |A ∩ B| ≥ ⌈t·|A|⌉, so B lacks at
 * most k = |A| − ⌈t·|A|⌉ of A's words, and every word no episode holds is among them; with z such
 * words, B holds at least m − (k − z) of any m other words of A. So only the postings of A's
 * k − z + 2 rarest words are read, and only rows holding two of them (or all the words there are
 * beyond k − z) and having ⌈t·|A|⌉ to ⌊|A|/t⌋ words are candidates.
 */
export function lookupCached(repo: IlpEpisodeRepository, query: string, now: number, settings: MemorySettings, threshold: number): CachedAnswer | null {
  const hash = queryHash(query);
  const own = repo.byHash(hash);
  if (own?.trusted()) {
    if (!answersFromCache(own.episode, now, settings, threshold)) return null;
    return { episode: own.episode, match: 'same-query', similarity: 1, weight: decayWeight(own.episode.timestamp, now, settings) };
  }
  const words = queryWords(query);
  if (words.length === 0) return null;
  const t = settings.similarity;
  // The epsilon keeps 0.8 × 5 = 4.000000000000001 from asking for 5 words.
  const minWords = Math.ceil(t * words.length - 1e-9);
  const maxWords = Math.floor(words.length / t + 1e-9);
  const counts = repo.wordCounts(words);
  const present = rarestFirst(words, counts).filter((word) => counts.has(word));
  const allowance = present.length - minWords;
  if (allowance < 0) return null;
  const chosen = present.slice(0, allowance + 2);
  if (chosen.reduce((sum, word) => sum + counts.get(word)!, 0) > CACHE_POSTINGS) return null;
  const rows = repo.sharingWords(chosen, {
    minShared: chosen.length - allowance,
    minWords,
    maxWords,
    cacheable: { minConfidence: threshold, since: now - settings.lifetimeMs },
    limit: CACHE_CANDIDATES,
  });
  const similar = ranked(
    rows.filter((row) => row.episode.query_hash !== hash),
    words,
    now,
    settings,
  ).filter((candidate) => candidate.similarity >= t);
  for (const { row, similarity } of similar) {
    if (row.trusted() && answersFromCache(row.episode, now, settings, threshold)) {
      return { episode: row.episode, match: 'similar', similarity, weight: decayWeight(row.episode.timestamp, now, settings) };
    }
  }
  return null;
}

/**
 * Episodes whose query shares words with `query`, most similar first (then the most relevant:
 * confidence × weight), at most `limit`, trusted ones only. Words are read rarest first until
 * the postings budget is spent, so a query of only common words reads the rows holding its
 * rarest word and no more.
 */
export function findSimilar(repo: IlpEpisodeRepository, query: string, limit: number, now: number, settings: MemorySettings): SimilarEpisode[] {
  const words = queryWords(query);
  if (words.length === 0 || limit <= 0) return [];
  const counts = repo.wordCounts(words);
  const chosen: string[] = [];
  let postings = 0;
  for (const word of rarestFirst(words, counts).filter((w) => counts.has(w))) {
    if (chosen.length > 0 && postings + counts.get(word)! > SIMILAR_POSTINGS) break;
    chosen.push(word);
    postings += counts.get(word)!;
  }
  if (chosen.length === 0) return [];
  const rows = repo.sharingWords(chosen, { minShared: 1, minWords: 0, maxWords: MAX_QUERY_WORDS, limit: SIMILAR_CANDIDATES });
  const found: SimilarEpisode[] = [];
  for (const { row, similarity } of ranked(rows, words, now, settings)) {
    if (found.length === limit) break;
    if (similarity > 0 && row.trusted()) found.push({ episode: row.episode, similarity });
  }
  return found;
}

function ranked(rows: readonly IlpEpisodeRow[], words: readonly string[], now: number, settings: MemorySettings): { row: IlpEpisodeRow; similarity: number; relevance: number }[] {
  return rows
    .map((row) => ({
      row,
      similarity: jaccard(words, queryWords(row.episode.query)),
      relevance: row.episode.confidence * decayWeight(row.episode.timestamp, now, settings),
    }))
    .sort((a, b) => b.similarity - a.similarity || b.relevance - a.relevance || b.row.episode.timestamp - a.row.episode.timestamp);
}

/** Fewest episodes first; a word no episode holds counts as 0. Ties by the word, so a lookup is repeatable. */
function rarestFirst(words: readonly string[], counts: ReadonlyMap<string, number>): string[] {
  return [...words].sort((a, b) => (counts.get(a) ?? 0) - (counts.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
}
