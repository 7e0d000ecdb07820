import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { episodeSealer } from '../../ilp/memory/episode-seals.js';
import { memorySeals } from '../../testing/seals.js';
import { useTempDirs } from '../../testing/temp.js';
import { openDatabase } from '../database.js';
import { sqliteConnection } from '../transaction.js';
import { IlpEpisodeRepository, type IlpEpisode } from './ilp-episodes.js';

/*
 * The ILP episode store (migration 022): one row per query hash, its word, concept and domain
 * index rows and the word counts kept in step through every write and deletion, a replacement in
 * one transaction.
 */

const tempDir = useTempDirs('silas-ilp-episodes-');

function open() {
  const { db } = openDatabase(join(tempDir(), 'silas.db'), { create: true });
  const { seals, refusals } = memorySeals();
  return { db, repo: new IlpEpisodeRepository(db, episodeSealer(seals)), refusals };
}

const stored = (id: string, query: string, timestamp: number, overrides: Partial<IlpEpisode> = {}): IlpEpisode => ({
  id,
  query,
  query_hash: id.padEnd(64, '0'),
  response: 'r',
  concepts: ['budget'],
  domains: ['financial'],
  agents_used: [],
  cost_usd: 0,
  success: true,
  confidence: 0.9,
  response_confidence: 0.9,
  timestamp,
  ...overrides,
});
const record = (repo: IlpEpisodeRepository, e: IlpEpisode) => repo.record(e.query_hash, () => ({ episode: e, queryNorm: e.query, words: e.query.split(' ') }));

describe('IlpEpisodeRepository', () => {
  it('stores a sealed episode with its index rows, and counts the episodes of each word', () => {
    const { repo } = open();
    const a = record(repo, stored('a', 'what is a budget', 1));
    record(repo, stored('b', 'what is homeostasis', 2, { concepts: ['homeostasis'] }));
    expect(repo.byId('a')).toMatchObject({ episode: a });
    expect(repo.byHash(a.query_hash)!.trusted()).toBe(true);
    expect(repo.wordCounts(['what', 'budget', 'absent'])).toEqual(new Map([['what', 2], ['budget', 1]]));
    expect(repo.query({ concepts: ['homeostasis'], limit: 10, now: 2, halfLifeMs: 1000 }).map((row) => row.episode.id)).toEqual(['b']);
    expect(repo.sharingWords(['budget', 'what'], { minShared: 1, minWords: 0, maxWords: 64, limit: 10 }).map((row) => row.episode.id)).toEqual(['a', 'b']);
    expect(repo.sharingWords(['budget', 'what'], { minShared: 2, minWords: 0, maxWords: 64, limit: 10 }).map((row) => row.episode.id)).toEqual(['a']);
  });

  it('a replacement and a deletion keep the index rows and counts in step', () => {
    const { db, repo } = open();
    record(repo, stored('a', 'what is a budget', 1));
    record(repo, stored('b', 'what is homeostasis', 2));
    record(repo, stored('a', 'what is a budget', 3, { concepts: ['money'] }));
    expect(repo.byId('a')!.episode).toMatchObject({ timestamp: 3, concepts: ['money'] });
    expect(repo.query({ concepts: ['budget'], limit: 10, now: 3, halfLifeMs: 1000 }).map((row) => row.episode.id)).toEqual(['b']);
    expect(repo.deleteOlderThan(3)).toBe(1);
    expect(repo.wordCounts(['what', 'homeostasis', 'budget'])).toEqual(new Map([['what', 1], ['budget', 1]]));
    const left = (table: string) => (sqliteConnection(db).prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([left('ilp_episodes'), left('ilp_episode_words'), left('ilp_episode_concepts'), left('ilp_episode_domains')]).toEqual([1, 4, 1, 1]);
  });

  it('an episode whose hash is not the one recorded is refused, and nothing is written', () => {
    const { repo } = open();
    expect(() => repo.record('f'.repeat(64), () => ({ episode: stored('a', 'q', 1), queryNorm: 'q', words: ['q'] }))).toThrow(/query hash/);
    expect([...repo.all()]).toEqual([]);
  });
});
