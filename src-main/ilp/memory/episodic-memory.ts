import { randomUUID } from 'node:crypto';
import { IlpEpisodeRepository, type IlpEpisode, type IlpEpisodeSealer } from '../../store/repositories/ilp-episodes.js';
import type { SqliteDatabase } from '../../store/transaction.js';
import type { ConstitutionalHeader } from '../constitution/header.js';
import { invalid } from '../attention/trace-input.js';
import { parseEpisodeInput, type EpisodeInput } from './episode-input.js';
import { findSimilar, lookupCached, type CachedAnswer, type SimilarEpisode } from './lookup.js';
import { normalizeQuery, queryHash, queryWords } from './query-text.js';
import { episodeStats, recurringPairs, type EpisodePattern, type EpisodeStats } from './report.js';
import { DEFAULT_CONFIDENCE_THRESHOLD, checkThreshold, decayWeight, isExpired, memorySettings, type MemorySettings, type MemorySettingsInput } from './settings.js';

/*
 * Episodic memory (spec 004 §4.3, §9.2 item 3, Appendix B Level 3; docs/ilp.md "Attention and
 * episodic memory"): every answered query is an episode; a query asked again updates its episode;
 * episodes decay with age; a successful, confident, recent answer to the same or a similar query
 * is answered from memory. Storage is `store/repositories/ilp-episodes.ts`; each row is sealed
 * (`episode-seals.ts`), and a row whose seal fails is never an answer, a result or evidence.
 */

export interface EpisodeQuery {
  /** Any of these (OR). */
  concepts?: readonly string[];
  /** Any of these (OR). */
  domains?: readonly string[];
  min_confidence?: number;
  /** Milliseconds: answered at or after. */
  since?: number;
  /** Part of the query, compared as the hash compares (case and white space ignored). */
  text?: string;
  /** Default 100, at most 1,000. */
  limit?: number;
}

export interface ConsolidationReport {
  /** Expired episodes deleted (weight below the floor). */
  dropped: number;
  untrusted_episodes: number;
  concept_patterns: EpisodePattern[];
  domain_patterns: EpisodePattern[];
}

export interface EpisodicMemoryOptions extends MemorySettingsInput {
  /** Milliseconds since the epoch. */
  now?: () => number;
  newId?: () => string;
}

const MAX_RESULTS = 1000;
/** Episodes `recentTrusted` reads at most: pattern discovery is bounded work (spec 004 §4.3; §10.4). */
const MAX_RECENT = 10_000;

/** The trusted episodes among those answered last, and how many of the rows read were not trusted. */
export interface RecentEpisodes {
  /** Newest first; expired ones (weight below the floor) left out, as `consolidate()` would delete them. */
  episodes: IlpEpisode[];
  /** Rows read whose seal failed: never evidence, only counted (docs/architecture.md §2 "Sealed state"). */
  untrusted: number;
}

export class EpisodicMemory {
  private readonly repo: IlpEpisodeRepository;
  private readonly settings: MemorySettings;
  private readonly now: () => number;
  private readonly newId: () => string;

  constructor(db: SqliteDatabase, sealer: IlpEpisodeSealer, options: EpisodicMemoryOptions = {}) {
    this.repo = new IlpEpisodeRepository(db, sealer);
    this.settings = memorySettings(options);
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? randomUUID;
  }

  /**
   * Records an answered query. The same query again (same hash) updates its episode: the response
   * and whether it succeeded are the new answer's, the confidence is averaged with the stored one
   * (the reference's rule) while the response's own confidence is kept beside it, and the episode
   * counts as answered now. Concepts, domains, agents and cost stay the first answer's, as the
   * reference keeps them.
   */
  add(input: EpisodeInput): IlpEpisode {
    const given = parseEpisodeInput(input);
    const hash = queryHash(given.query);
    const timestamp = Math.floor(this.now());
    return this.repo.record(hash, (current) => {
      const episode: IlpEpisode = current
        ? { ...current, response: given.response, success: given.success, confidence: (current.confidence + given.confidence) / 2, response_confidence: given.confidence, timestamp }
        : { id: this.newId(), query: given.query, query_hash: hash, response: given.response, concepts: given.concepts, domains: given.domains, agents_used: given.agents_used, cost_usd: given.cost_usd, success: given.success, confidence: given.confidence, response_confidence: given.confidence, timestamp };
      return { episode, queryNorm: normalizeQuery(episode.query), words: queryWords(episode.query) };
    });
  }

  /** A trusted episode by id, or null. */
  get(id: string): IlpEpisode | null {
    const row = this.repo.byId(id);
    return row?.trusted() ? row.episode : null;
  }

  /** §9.2 item 3: the stored answer for `query` under the request's confidence threshold, or null. */
  cached(query: string, header: Pick<ConstitutionalHeader, 'confidence_threshold'> = { confidence_threshold: DEFAULT_CONFIDENCE_THRESHOLD }): CachedAnswer | null {
    if (typeof query !== 'string') throw invalid('query must be the text asked');
    return lookupCached(this.repo, query, this.now(), this.settings, checkThreshold(header.confidence_threshold));
  }

  /** Trusted episodes whose query shares words with `query`, most similar first. */
  findSimilarQueries(query: string, limit = 5): SimilarEpisode[] {
    if (typeof query !== 'string') throw invalid('query must be the text asked');
    return findSimilar(this.repo, query, Math.min(Math.max(0, Math.floor(limit)), MAX_RESULTS), this.now(), this.settings);
  }

  /** Trusted episodes matching every filter given, most relevant (confidence × weight) first. */
  query(filter: EpisodeQuery = {}): IlpEpisode[] {
    const limit = filter.limit ?? 100;
    if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_RESULTS) throw invalid(`limit must be a whole number from 0 to ${MAX_RESULTS}, got ${String(limit)}`);
    const text = filter.text === undefined ? undefined : normalizeQuery(filter.text);
    const rows = this.repo.query({
      ...(filter.concepts ? { concepts: filter.concepts } : {}),
      ...(filter.domains ? { domains: filter.domains } : {}),
      ...(filter.min_confidence !== undefined ? { minConfidence: filter.min_confidence } : {}),
      ...(filter.since !== undefined ? { since: filter.since } : {}),
      ...(text ? { text } : {}),
      limit,
      now: this.now(),
      halfLifeMs: this.settings.halfLifeMs,
    });
    // The index columns chose the rows; the sealed columns decide.
    return rows.filter((row) => row.trusted() && matches(row.episode, filter, text)).map((row) => row.episode);
  }

  /** The episode's decayed weight now: 1 when just answered, ½ one half-life later. */
  weight(episode: Pick<IlpEpisode, 'timestamp'>): number {
    return decayWeight(episode.timestamp, this.now(), this.settings);
  }

  /**
   * The last `limit` episodes answered, each seal checked: what knowledge distillation learns from
   * (spec 004 §4.3 "Pattern Discovery"). Reads at most `limit` rows by the timestamp index, so its
   * cost does not grow with the memory.
   */
  recentTrusted(limit: number): RecentEpisodes {
    if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_RECENT) throw invalid(`limit must be a whole number from 0 to ${MAX_RECENT}, got ${String(limit)}`);
    const now = this.now();
    const episodes: IlpEpisode[] = [];
    let untrusted = 0;
    for (const row of this.repo.recent(limit)) {
      if (!row.trusted()) untrusted += 1;
      else if (!isExpired(row.episode, now, this.settings)) episodes.push(row.episode);
    }
    return { episodes, untrusted };
  }

  /** Totals over trusted episodes. Reads every row: for the CLI or a worker, not the runtime's loop. */
  stats(): EpisodeStats {
    const { trusted, untrusted } = this.readAll();
    return episodeStats(trusted, untrusted);
  }

  /**
   * Deletes expired episodes (weight below the floor), then reports the concept and domain pairs
   * that recur among the trusted rest. Duplicates need no merging: a query asked again updates
   * its own episode. Reads every row, like `stats()`.
   */
  consolidate(): ConsolidationReport {
    const now = this.now();
    const dropped = this.repo.deleteOlderThan(now - this.settings.lifetimeMs);
    const { trusted, untrusted } = this.readAll();
    const live = trusted.filter((episode) => !isExpired(episode, now, this.settings));
    return {
      dropped,
      untrusted_episodes: untrusted,
      concept_patterns: recurringPairs(live.map((e) => e.concepts)),
      domain_patterns: recurringPairs(live.map((e) => e.domains)),
    };
  }

  private readAll(): { trusted: IlpEpisode[]; untrusted: number } {
    const trusted: IlpEpisode[] = [];
    let untrusted = 0;
    for (const row of this.repo.all()) {
      if (row.trusted()) trusted.push(row.episode);
      else untrusted += 1;
    }
    return { trusted, untrusted };
  }
}

function matches(episode: IlpEpisode, filter: EpisodeQuery, text: string | undefined): boolean {
  const anyOf = (have: readonly string[], wanted: readonly string[] | undefined) => !wanted || wanted.length === 0 || wanted.some((name) => have.includes(name));
  return (
    anyOf(episode.concepts, filter.concepts) &&
    anyOf(episode.domains, filter.domains) &&
    episode.confidence >= (filter.min_confidence ?? 0) &&
    episode.timestamp >= (filter.since ?? Number.MIN_SAFE_INTEGER) &&
    (!text || normalizeQuery(episode.query).includes(text))
  );
}
