import type { IlpEpisode } from '../../store/repositories/ilp-episodes.js';
import { pairTally, tally } from '../attention/counting.js';

/*
 * What episodic memory reports about itself (spec 004 §4.3 "Pattern Discovery"): totals, the
 * commonest concepts and domains, and the pairs that recur. Computed over trusted episodes only;
 * rows whose seal fails are counted apart, never as evidence (docs/architecture.md §2).
 */

export interface EpisodeStats {
  total_episodes: number;
  /** Distinct concepts. */
  total_concepts: number;
  total_cost: number;
  average_confidence: number;
  success_rate: number;
  most_common_concepts: { concept: string; count: number }[];
  most_queried_domains: { domain: string; count: number }[];
  /** Rows stored but not trusted: planted or changed outside Silas, or the keyring is unreachable. */
  untrusted_episodes: number;
}

/** Two concepts, or two domains, named together by episodes. */
export interface EpisodePattern {
  names: [string, string];
  episodes: number;
}

/** A pair recurs when at least this share of the episodes names it (the reference's tests: "> 20% frequency"). */
const PATTERN_MIN_SHARE = 0.2;
const LISTED = 10;
const PATTERNS_LISTED = 20;

export function episodeStats(episodes: readonly IlpEpisode[], untrusted: number): EpisodeStats {
  const n = episodes.length;
  const sum = (pick: (e: IlpEpisode) => number) => episodes.reduce((total, e) => total + pick(e), 0);
  const concepts = tally(episodes.flatMap((e) => e.concepts));
  return {
    total_episodes: n,
    total_concepts: concepts.length,
    total_cost: sum((e) => e.cost_usd),
    average_confidence: n === 0 ? 0 : sum((e) => e.confidence) / n,
    success_rate: n === 0 ? 0 : episodes.filter((e) => e.success).length / n,
    most_common_concepts: concepts.slice(0, LISTED).map(({ name, count }) => ({ concept: name, count })),
    most_queried_domains: tally(episodes.flatMap((e) => e.domains))
      .slice(0, LISTED)
      .map(({ name, count }) => ({ domain: name, count })),
    untrusted_episodes: untrusted,
  };
}

/** Pairs named by at least PATTERN_MIN_SHARE of the episodes, most frequent first. */
export function recurringPairs(groups: readonly (readonly string[])[]): EpisodePattern[] {
  const needed = Math.max(1, Math.ceil(PATTERN_MIN_SHARE * groups.length - 1e-9));
  return pairTally(groups)
    .filter((entry) => entry.count >= needed)
    .slice(0, PATTERNS_LISTED)
    .map((entry) => ({ names: entry.pair, episodes: entry.count }));
}
