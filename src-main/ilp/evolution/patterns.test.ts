import { describe, expect, it } from 'vitest';
import type { IlpEpisode } from '../../store/repositories/ilp-episodes.js';
import { sqliteConnection } from '../../store/transaction.js';
import { useTempDirs } from '../../testing/temp.js';
import { episode, openEpisodicMemory, T0 } from '../memory/testing/memory.js';
import { discoverPatterns, MAX_PATTERNS } from './patterns.js';

/*
 * Pattern discovery (spec 004 §4.3 step 2): which combinations count, how often, and from which
 * episodes; and the bounded, seal-checked read of recent episodes it runs on.
 */

let n = 0;
function ep(concepts: string[], fields: Partial<IlpEpisode> = {}): IlpEpisode {
  n += 1;
  return { id: `e${n}`, query: `question ${n}`, query_hash: 'h'.repeat(64), response: 'r', concepts, domains: ['biology'], agents_used: [], cost_usd: 0, success: true, confidence: 0.9, response_confidence: 0.9, timestamp: T0, ...fields };
}
const times = (count: number, make: () => IlpEpisode) => Array.from({ length: count }, make);

describe('discoverPatterns', () => {
  it('keeps a combination only from N successful episodes at the confidence threshold', () => {
    const episodes = [
      ...times(3, () => ep(['homeostasis', 'feedback_loop'])),
      ...times(2, () => ep(['budget', 'set_point'])),
      ...times(3, () => ep(['budget', 'set_point'], { success: false })),
      ...times(3, () => ep(['budget', 'set_point'], { confidence: 0.69 })),
    ];
    const patterns = discoverPatterns(episodes, { minFrequency: 3 });
    expect(patterns.map((p) => p.key)).toEqual(['feedback_loop+homeostasis']);
    expect(patterns[0]).toMatchObject({ concepts: ['feedback_loop', 'homeostasis'], frequency: 3, episodes: 3, success_rate: 1, domains: ['biology'] });
    expect(discoverPatterns(episodes, { minFrequency: 2 }).map((p) => [p.key, p.frequency, p.episodes, p.success_rate])).toEqual([
      ['feedback_loop+homeostasis', 3, 3, 1],
      ['budget+set_point', 2, 8, 0.25],
    ]);
    expect(discoverPatterns(episodes, { minFrequency: 3, confidenceThreshold: 0.6 }).map((p) => p.key)).toEqual(['budget+set_point', 'feedback_loop+homeostasis']);
  });

  it('matches concepts as the navigator does, and keeps a single concept only when it recurs apart from its pair', () => {
    const episodes = [...times(2, () => ep(['Negative Feedback', 'homeostasis'])), ep(['negative_feedback', 'HOMEOSTASIS']), ...times(3, () => ep(['homeostasis']))];
    const patterns = discoverPatterns(episodes, { minFrequency: 3 });
    expect(patterns.map((p) => [p.key, p.frequency])).toEqual([
      ['homeostasis', 6],
      ['homeostasis+negative_feedback', 3],
    ]);
  });

  it('scores confidence from frequency and success rate, and gives up to three queries and ten sources, newest first', () => {
    const good = times(12, () => ep(['diversification', 'correlation'], { domains: ['finance', 'systems'] }));
    const failed = times(4, () => ep(['diversification', 'correlation'], { success: false }));
    const [pattern] = discoverPatterns([...good, ...failed]);
    expect(pattern).toMatchObject({ frequency: 12, episodes: 16, success_rate: 0.75, confidence: 0.6, domains: ['finance', 'systems'] });
    expect(pattern!.representative_queries).toEqual(good.slice(0, 3).map((e) => e.query));
    expect(pattern!.episode_ids).toEqual(good.slice(0, 10).map((e) => e.id));
    const fewer = discoverPatterns(times(3, () => ep(['diversification'])))[0]!;
    expect(fewer.confidence).toBe(0.5);
  });

  it('is bounded: patterns returned and options refused out of range, naming the option', () => {
    const many = Array.from({ length: 300 }, (_, i) => times(3, () => ep([`concept_${i}`]))).flat();
    expect(discoverPatterns(many).length).toBe(20);
    expect(discoverPatterns(many, { maxPatterns: MAX_PATTERNS }).length).toBe(MAX_PATTERNS);
    expect(() => discoverPatterns(many, { maxPatterns: MAX_PATTERNS + 1 })).toThrow(/maxPatterns must be a whole number/);
    expect(() => discoverPatterns(many, { minFrequency: 0 })).toThrow(/minFrequency must be a whole number/);
    expect(() => discoverPatterns(many, { confidenceThreshold: 2 })).toThrow(/confidenceThreshold must be a number from 0 to 1/);
  });
});

describe('EpisodicMemory.recentTrusted', () => {
  const tempDir = useTempDirs('silas-ilp-recent-');

  it('reads the last N episodes only, newest first, and counts a planted row apart', () => {
    const { db, memory, clock } = openEpisodicMemory(tempDir());
    for (let i = 0; i < 5; i += 1) {
      clock.now = T0 + i * 1000;
      memory.add(episode(`question ${i}`, { concepts: ['homeostasis'] }));
    }
    sqliteConnection(db)
      .prepare(`INSERT INTO ilp_episodes (episode_id, query, query_norm, query_hash, response, concepts, domains, agents_used, cost_usd, success, confidence, response_confidence, word_count, timestamp)
        VALUES ('planted', 'planted', 'planted', ?, 'r', '["homeostasis"]', '[]', '[]', 0, 1, 1, 1, 1, ?)`)
      .run('p'.repeat(64), T0 + 10_000);
    const recent = memory.recentTrusted(3);
    expect(recent.episodes.map((e) => e.query)).toEqual(['question 4', 'question 3']);
    expect(recent.untrusted).toBe(1);
    expect(() => memory.recentTrusted(10_001)).toThrow(/limit must be a whole number from 0 to 10000/);
  });
});
