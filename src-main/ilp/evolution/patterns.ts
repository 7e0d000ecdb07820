import type { IlpEpisode } from '../../store/repositories/ilp-episodes.js';
import { invalid } from '../attention/trace-input.js';
import { DEFAULT_CONFIDENCE_THRESHOLD } from '../memory/settings.js';
import { conceptKey } from '../navigator/navigator.js';

/*
 * Pattern discovery (spec 004 §4.3 "Self-Evolution Flow" step 2): the concept combinations that
 * recur in episodic memory, each with how often it went well, a confidence score from that, and a
 * few representative queries. Only trusted episodes are given here (the caller reads them through
 * their seals, docs/architecture.md §2 "Sealed state"), and only episodes that succeeded with a
 * confidence at the memory's threshold count towards a pattern's frequency: a slice is learned
 * from answers that were good, never from ones that merely recurred.
 *
 * Combinations are single concepts and pairs, in the navigator's matching form (`conceptKey`), so
 * "Negative Feedback" and negative_feedback are one concept, and a learned slice is found by the
 * words that found the episodes. The work is bounded: at most MAX_EPISODES episodes, the first
 * CONCEPTS_PER_EPISODE concepts of each, and a second pass that gathers details for the
 * combinations that passed the threshold only.
 */

export interface DiscoveredPattern {
  /** The concepts joined by `+`: the pattern's identity across runs. */
  key: string;
  /** One or two concept keys, sorted. */
  concepts: string[];
  /** The domains of its successful episodes, most named first (at most MAX_DOMAINS). */
  domains: string[];
  /** Successful episodes, confidence at the threshold, that hold every concept. */
  frequency: number;
  /** Every episode read that holds every concept. */
  episodes: number;
  /** frequency / episodes. */
  success_rate: number;
  /** success_rate × frequency / (frequency + SUPPORT_HALF): grows with evidence, never past the success rate. */
  confidence: number;
  /** Up to three queries of its successful episodes, newest first. */
  representative_queries: string[];
  /** Ids of up to MAX_SOURCES of its successful episodes: the sources a slice learned from it cites. */
  episode_ids: string[];
}

export interface PatternOptions {
  /** Successful episodes a combination needs; default 3. */
  minFrequency?: number;
  /** Default: the memory's, 0.7 (spec 004 §6.1). */
  confidenceThreshold?: number;
  /** Default 20, at most MAX_PATTERNS. */
  maxPatterns?: number;
}

export const MAX_EPISODES = 5_000;
export const MAX_PATTERNS = 200;
export const DEFAULT_MIN_FREQUENCY = 3;
const CONCEPTS_PER_EPISODE = 12;
const SUPPORT_HALF = 3;
const MAX_DOMAINS = 5;
const MAX_QUERIES = 3;
const MAX_SOURCES = 10;
const QUERY_CHARS = 500;

/** The combinations an episode names: its concepts (first CONCEPTS_PER_EPISODE distinct keys) alone and in pairs. */
function combinations(episode: IlpEpisode): string[] {
  const keys = [...new Set(episode.concepts.map(conceptKey).filter((key) => key !== ''))].slice(0, CONCEPTS_PER_EPISODE).sort();
  const out = [...keys];
  for (let i = 0; i < keys.length; i += 1) for (let j = i + 1; j < keys.length; j += 1) out.push(`${keys[i]!}+${keys[j]!}`);
  return out;
}

export function discoverPatterns(episodes: readonly IlpEpisode[], options: PatternOptions = {}): DiscoveredPattern[] {
  const minFrequency = options.minFrequency ?? DEFAULT_MIN_FREQUENCY;
  const threshold = options.confidenceThreshold ?? DEFAULT_CONFIDENCE_THRESHOLD;
  const maxPatterns = options.maxPatterns ?? 20;
  if (!Number.isSafeInteger(minFrequency) || minFrequency < 1 || minFrequency > MAX_EPISODES) throw invalid(`minFrequency must be a whole number of episodes from 1 to ${MAX_EPISODES}, got ${String(minFrequency)}`);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw invalid(`confidenceThreshold must be a number from 0 to 1, got ${String(threshold)}`);
  if (!Number.isSafeInteger(maxPatterns) || maxPatterns < 0 || maxPatterns > MAX_PATTERNS) throw invalid(`maxPatterns must be a whole number from 0 to ${MAX_PATTERNS}, got ${String(maxPatterns)}`);
  const read = episodes.slice(0, MAX_EPISODES);
  const good = (e: IlpEpisode) => e.success && e.confidence >= threshold;

  // First pass: counts only, so the combinations that never recur cost two numbers each. Each
  // episode's combinations are computed once and kept for the second pass.
  const combos = read.map(combinations);
  const counts = new Map<string, { episodes: number; good: number }>();
  read.forEach((episode, i) => {
    const ok = good(episode);
    for (const key of combos[i]!) {
      let count = counts.get(key);
      if (count === undefined) counts.set(key, (count = { episodes: 0, good: 0 }));
      count.episodes += 1;
      if (ok) count.good += 1;
    }
  });
  const kept = new Map<string, { domains: Map<string, number>; queries: string[]; ids: string[] }>();
  for (const [key, count] of counts) if (count.good >= minFrequency) kept.set(key, { domains: new Map(), queries: [], ids: [] });

  // Second pass: details for the combinations kept, from their successful episodes (newest first as given).
  read.forEach((episode, i) => {
    if (!good(episode)) return;
    const domains = [...new Set(episode.domains)];
    const query = episode.query.slice(0, QUERY_CHARS);
    for (const key of combos[i]!) {
      const detail = kept.get(key);
      if (!detail) continue;
      for (const domain of domains) detail.domains.set(domain, (detail.domains.get(domain) ?? 0) + 1);
      if (detail.queries.length < MAX_QUERIES && !detail.queries.includes(query)) detail.queries.push(query);
      if (detail.ids.length < MAX_SOURCES) detail.ids.push(episode.id);
    }
  });

  const patterns = [...kept].map(([key, detail]): DiscoveredPattern => {
    const { episodes: seen, good: frequency } = counts.get(key)!;
    const successRate = frequency / seen;
    return {
      key,
      concepts: key.split('+'),
      domains: [...detail.domains].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_DOMAINS).map(([domain]) => domain),
      frequency,
      episodes: seen,
      success_rate: round(successRate),
      confidence: round((successRate * frequency) / (frequency + SUPPORT_HALF)),
      representative_queries: detail.queries,
      episode_ids: detail.ids,
    };
  });
  // A concept that only ever came with one other is the pair's pattern, not one of its own: a
  // single is dropped when a pair holding it was seen in as many episodes.
  const pairEpisodes = new Map<string, Set<number>>();
  for (const p of patterns) {
    if (p.concepts.length !== 2) continue;
    for (const concept of p.concepts) {
      let seen = pairEpisodes.get(concept);
      if (seen === undefined) pairEpisodes.set(concept, (seen = new Set()));
      seen.add(p.episodes);
    }
  }
  const distinct = patterns.filter((p) => p.concepts.length === 2 || !pairEpisodes.get(p.concepts[0]!)?.has(p.episodes));
  return distinct.sort((a, b) => b.frequency - a.frequency || b.confidence - a.confidence || b.concepts.length - a.concepts.length || (a.key < b.key ? -1 : 1)).slice(0, maxPatterns);
}

const round = (value: number) => Math.round(value * 1000) / 1000;
