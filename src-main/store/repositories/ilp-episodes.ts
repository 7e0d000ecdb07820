import { inImmediateTransaction, sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/** One ILP episode (spec 004 §4.3 "Experience Collection"): a query, its answer and how it went. */
export interface IlpEpisode {
  id: string;
  query: string;
  /** sha256 of the query lower-cased, trimmed, whitespace collapsed: one episode per such query. */
  query_hash: string;
  response: string;
  concepts: string[];
  domains: string[];
  agents_used: string[];
  cost_usd: number;
  success: boolean;
  /** Averaged over every answer the query had (the reference's rule). */
  confidence: number;
  /** The confidence of the response stored now: a cached answer must itself have been confident. */
  response_confidence: number;
  /** Milliseconds since the epoch: when the query was last answered; its weight decays from here. */
  timestamp: number;
}

/** An episode with what the repository derives for search: the normalised query and its words. */
export interface IlpEpisodeRecord {
  episode: IlpEpisode;
  queryNorm: string;
  words: readonly string[];
}

/**
 * Seals what decides a cached answer with a keyring-held key (docs/architecture.md §2 "Sealed
 * state"); the repository sees only this shape. `check` reports a failed seal itself.
 */
export interface IlpEpisodeSealer {
  seal(episodeId: string, fields: readonly unknown[]): string;
  check(episodeId: string, fields: readonly unknown[], seal: string | null): boolean;
}

/** A stored episode. Its seal is checked when `trusted()` is first asked: most lookups read rows they never use. */
export interface IlpEpisodeRow {
  episode: IlpEpisode;
  trusted(): boolean;
}

/** Every column a cached answer depends on; the id is bound by the seal itself. */
function sealedFields(e: IlpEpisode): unknown[] {
  return [e.query, e.query_hash, e.response, e.concepts, e.domains, e.agents_used, e.cost_usd, e.success, e.confidence, e.response_confidence, e.timestamp];
}

export interface EpisodeQueryFilter {
  concepts?: readonly string[];
  domains?: readonly string[];
  minConfidence?: number;
  /** Milliseconds: answered at or after. */
  since?: number;
  /** A part of the normalised query. */
  text?: string;
  limit: number;
  /** Relevance is confidence × 2^(−age/half-life), so the ordering needs the time and the half-life. */
  now: number;
  halfLifeMs: number;
}

export interface SharingWordsFilter {
  /** How many of the words a row must hold. */
  minShared: number;
  minWords: number;
  maxWords: number;
  /** Only rows whose columns claim a cacheable answer (checked again, sealed, by the caller). */
  cacheable?: { minConfidence: number; since: number };
  limit: number;
}

type Row = Record<string, unknown> & { seq: number; seal: string | null };

const SHARING = `SELECT e.* FROM (
    SELECT seq, count(*) AS shared FROM ilp_episode_words WHERE word IN (SELECT value FROM json_each(@words)) GROUP BY seq HAVING shared >= @min_shared
  ) s JOIN ilp_episodes e ON e.seq = s.seq
  WHERE e.word_count BETWEEN @min_words AND @max_words
    AND (@cacheable = 0 OR (e.success = 1 AND e.confidence >= @min_confidence AND e.response_confidence >= @min_confidence AND e.timestamp >= @since))
  ORDER BY s.shared DESC, e.seq DESC LIMIT @limit`;

const QUERY = `SELECT e.* FROM ilp_episodes e
  WHERE (@concepts IS NULL OR e.seq IN (SELECT seq FROM ilp_episode_concepts WHERE concept IN (SELECT value FROM json_each(@concepts))))
    AND (@domains IS NULL OR e.seq IN (SELECT seq FROM ilp_episode_domains WHERE domain IN (SELECT value FROM json_each(@domains))))
    AND e.confidence >= @min_confidence AND e.timestamp >= @since
    AND (@text IS NULL OR instr(e.query_norm, @text) > 0)
  ORDER BY e.confidence * pow(2.0, (e.timestamp - @now) / (@half_life * 1.0)) DESC, e.seq DESC
  LIMIT @limit`;

/**
 * The ILP episodic memory's store (spec 004 §4.3; docs/ilp.md "Attention and episodic memory"):
 * episodes by query hash, with word, concept and domain indexes. The indexes only choose rows;
 * whether a row counts is its seal's to say (`IlpEpisodeRow.trusted`).
 */
export class IlpEpisodeRepository {
  private readonly db: SqliteConnection;
  private readonly stmts;

  constructor(
    database: SqliteDatabase,
    private readonly sealer: IlpEpisodeSealer,
  ) {
    const db = sqliteConnection(database);
    this.db = db;
    this.stmts = {
      byHash: db.prepare('SELECT * FROM ilp_episodes WHERE query_hash = ?'),
      byId: db.prepare('SELECT * FROM ilp_episodes WHERE episode_id = ?'),
      insert: db.prepare(`INSERT INTO ilp_episodes (episode_id, query, query_norm, query_hash, response, concepts, domains, agents_used,
          cost_usd, success, confidence, response_confidence, word_count, timestamp, seal)
        VALUES (@id, @query, @query_norm, @query_hash, @response, @concepts, @domains, @agents_used,
          @cost_usd, @success, @confidence, @response_confidence, @word_count, @timestamp, @seal)`),
      word: db.prepare('INSERT OR IGNORE INTO ilp_episode_words (word, seq) VALUES (?, ?)'),
      concept: db.prepare('INSERT OR IGNORE INTO ilp_episode_concepts (concept, seq) VALUES (?, ?)'),
      domain: db.prepare('INSERT OR IGNORE INTO ilp_episode_domains (domain, seq) VALUES (?, ?)'),
      delete: db.prepare('DELETE FROM ilp_episodes WHERE seq = ?'),
      deleteOlder: db.prepare('DELETE FROM ilp_episodes WHERE timestamp < ?'),
      counts: db.prepare('SELECT word, episodes FROM ilp_episode_word_counts WHERE word IN (SELECT value FROM json_each(?))'),
      sharing: db.prepare(SHARING),
      query: db.prepare(QUERY),
      all: db.prepare('SELECT * FROM ilp_episodes ORDER BY seq'),
      recent: db.prepare('SELECT * FROM ilp_episodes ORDER BY timestamp DESC, seq DESC LIMIT ?'),
    };
  }

  /**
   * Writes the episode of `queryHash` in one transaction: `build` gets the stored episode when
   * there is one and its seal holds (null otherwise), and returns what to store. A stored row
   * whose seal fails is replaced, never merged into: nothing of it reaches the new seal.
   */
  record(queryHash: string, build: (current: IlpEpisode | null) => IlpEpisodeRecord): IlpEpisode {
    return inImmediateTransaction(this.db, () => {
      const stored = this.stmts.byHash.get(queryHash) as Row | undefined;
      const current = stored ? this.toRow(stored) : null;
      const next = build(current?.trusted() ? current.episode : null);
      if (next.episode.query_hash !== queryHash) throw new Error(`episode ${next.episode.id}: its query hash is not the one recorded`);
      if (stored) this.stmts.delete.run(stored.seq);
      const e = next.episode;
      const { lastInsertRowid } = this.stmts.insert.run({
        ...e,
        concepts: JSON.stringify(e.concepts),
        domains: JSON.stringify(e.domains),
        agents_used: JSON.stringify(e.agents_used),
        success: e.success ? 1 : 0,
        query_norm: next.queryNorm,
        word_count: next.words.length,
        seal: this.sealer.seal(e.id, sealedFields(e)),
      });
      for (const word of next.words) this.stmts.word.run(word, lastInsertRowid);
      for (const concept of e.concepts) this.stmts.concept.run(concept, lastInsertRowid);
      for (const domain of e.domains) this.stmts.domain.run(domain, lastInsertRowid);
      return e;
    });
  }

  byHash(queryHash: string): IlpEpisodeRow | null {
    const row = this.stmts.byHash.get(queryHash) as Row | undefined;
    return row ? this.toRow(row) : null;
  }

  byId(id: string): IlpEpisodeRow | null {
    const row = this.stmts.byId.get(id) as Row | undefined;
    return row ? this.toRow(row) : null;
  }

  /** How many episodes hold each word (words held by none are absent). */
  wordCounts(words: readonly string[]): Map<string, number> {
    const rows = this.stmts.counts.all(JSON.stringify(words)) as { word: string; episodes: number }[];
    return new Map(rows.map((row) => [row.word, row.episodes]));
  }

  /** Episodes holding at least `minShared` of `words` and between `minWords` and `maxWords` words: most words shared first, newest first. */
  sharingWords(words: readonly string[], filter: SharingWordsFilter): IlpEpisodeRow[] {
    const rows = this.stmts.sharing.all({
      words: JSON.stringify(words),
      min_shared: filter.minShared,
      min_words: filter.minWords,
      max_words: filter.maxWords,
      cacheable: filter.cacheable ? 1 : 0,
      min_confidence: filter.cacheable?.minConfidence ?? 0,
      since: filter.cacheable?.since ?? 0,
      limit: filter.limit,
    }) as Row[];
    return rows.map((row) => this.toRow(row));
  }

  /** Episodes matching every filter given (any of the concepts, any of the domains), most relevant first. */
  query(filter: EpisodeQueryFilter): IlpEpisodeRow[] {
    const list = (values: readonly string[] | undefined) => (values && values.length > 0 ? JSON.stringify(values) : null);
    const rows = this.stmts.query.all({
      concepts: list(filter.concepts),
      domains: list(filter.domains),
      min_confidence: filter.minConfidence ?? 0,
      since: filter.since ?? Number.MIN_SAFE_INTEGER,
      text: filter.text ?? null,
      limit: filter.limit,
      now: filter.now,
      half_life: filter.halfLifeMs,
    }) as Row[];
    return rows.map((row) => this.toRow(row));
  }

  /** Every stored episode, oldest row first: for statistics and consolidation, which read them all. */
  *all(): Generator<IlpEpisodeRow> {
    for (const row of this.stmts.all.iterate() as IterableIterator<Row>) yield this.toRow(row);
  }

  /** The `limit` episodes answered last, newest first (by the timestamp index: reads no more rows than asked). */
  recent(limit: number): IlpEpisodeRow[] {
    return (this.stmts.recent.all(limit) as Row[]).map((row) => this.toRow(row));
  }

  /** Deletes episodes last answered before `cutoff` (milliseconds), with their index rows; returns how many. */
  deleteOlderThan(cutoff: number): number {
    return inImmediateTransaction(this.db, () => this.stmts.deleteOlder.run(cutoff).changes);
  }

  private toRow(row: Row): IlpEpisodeRow {
    const episode: IlpEpisode = {
      id: row.episode_id as string,
      query: row.query as string,
      query_hash: row.query_hash as string,
      response: row.response as string,
      // Parsed as stored: a value changed outside Silas fails the seal rather than being repaired.
      concepts: JSON.parse(row.concepts as string) as string[],
      domains: JSON.parse(row.domains as string) as string[],
      agents_used: JSON.parse(row.agents_used as string) as string[],
      cost_usd: row.cost_usd as number,
      success: row.success === 1,
      confidence: row.confidence as number,
      response_confidence: row.response_confidence as number,
      timestamp: row.timestamp as number,
    };
    let verdict: boolean | undefined;
    return { episode, trusted: () => (verdict ??= this.sealer.check(episode.id, sealedFields(episode), row.seal ?? null)) };
  }
}
