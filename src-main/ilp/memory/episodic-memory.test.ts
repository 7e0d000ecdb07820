import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { jaccard, normalizeQuery, queryHash, queryWords } from './query-text.js';
import { DAY, T0, episode, openEpisodicMemory } from './testing/memory.js';

/*
 * Episodic memory (spec 004 §4.3, §9.2 item 3; docs/ilp.md "Attention and episodic memory";
 * docs/conformance.md "ILP episodic memory"): what is stored, what a query asked again changes,
 * the filters, similarity, the cache rule, decay and consolidation. Attacks on the stored rows
 * are in episode-attacks.test.ts.
 */

const tempDir = useTempDirs('silas-ilp-memory-');

describe('query text', () => {
  it('hashes the query lower-cased, trimmed and with white space collapsed', () => {
    expect(normalizeQuery('  How can I \t stabilize\nMY spending? ')).toBe('how can i stabilize my spending?');
    expect(queryHash('How can I  stabilize my spending?')).toBe('57d10391a3e4f0df0d980e04ccc5f205b4c7ac3d251e90f76c8c4a7a75e6107c');
    expect(queryHash('  how can i stabilize MY spending? ')).toBe(queryHash('How can I  stabilize my spending?'));
    expect(queryHash('How can I stabilize my spending')).not.toBe(queryHash('How can I stabilize my spending?'));
  });

  it('compares words without punctuation, once each; two empty queries are not similar', () => {
    expect(queryWords('Spending? spending, SPENDING... feedback_loop')).toEqual(['spending', 'feedback_loop']);
    expect(jaccard(queryWords('how can i stabilize expenses'), queryWords('How can I  stabilize my spending?'))).toBeCloseTo(4 / 7, 12);
    expect(jaccard([], [])).toBe(0);
    expect(queryWords(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(64);
  });
});

describe('EpisodicMemory: storing', () => {
  it('stores an episode with its hash and refuses input naming the field', () => {
    const { memory } = openEpisodicMemory(tempDir());
    const stored = memory.add(episode('What is a feedback loop?', { concepts: ['feedback_loop', 'feedback_loop'], domains: ['systems'] }));
    expect(stored).toMatchObject({ query: 'What is a feedback loop?', query_hash: queryHash('what is a feedback loop?'), concepts: ['feedback_loop'], timestamp: T0, response_confidence: 0.9 });
    expect(memory.get(stored.id)).toEqual(stored);
    expect(() => memory.add(episode('q', { confidence: 1.2 }))).toThrow(/confidence is above 1/);
    expect(() => memory.add(episode('   '))).toThrow(/query is empty/);
    expect(() => memory.add({ ...episode('q'), extra: 1 } as never)).toThrow(/unknown field extra/);
    expect(() => memory.add(episode('q', { cost_usd: -1 }))).toThrow(/cost_usd is negative/);
  });

  it('a query asked again updates its episode: new response and success, averaged confidence, the rest kept', () => {
    const { memory, clock } = openEpisodicMemory(tempDir());
    const first = memory.add(episode('How can I  stabilize my spending?', { response: 'resp1', concepts: ['homeostasis', 'budget'], domains: ['financial', 'biology'], cost_usd: 0.02, confidence: 0.9 }));
    clock.now += 1000;
    const again = memory.add(episode('  how can i stabilize MY spending? ', { response: 'resp1b', concepts: ['other'], domains: ['systems'], cost_usd: 0.5, success: false, confidence: 0.5 }));
    expect(again).toEqual({ ...first, response: 'resp1b', success: false, confidence: 0.7, response_confidence: 0.5, timestamp: T0 + 1000 });
    expect(memory.query({ concepts: ['other'] })).toEqual([]);
    expect(memory.stats()).toMatchObject({ total_episodes: 1, total_cost: 0.02 });
  });
});

describe('EpisodicMemory: queries and similarity', () => {
  function three() {
    const opened = openEpisodicMemory(tempDir());
    opened.memory.add(episode('Financial query', { concepts: ['finance'], domains: ['financial'], confidence: 0.9 }));
    opened.memory.add(episode('Biology query about cells', { concepts: ['biology', 'cell'], domains: ['biology'], confidence: 0.8 }));
    opened.memory.add(episode('Systems query', { concepts: ['systems'], domains: ['systems'], success: false, confidence: 0.6 }));
    return opened;
  }

  it('filters by any concept, any domain, confidence, time and text; most relevant first', () => {
    const { memory, clock } = three();
    const queries = (filter: Parameters<typeof memory.query>[0]) => memory.query(filter).map((e) => e.query);
    expect(queries({})).toEqual(['Financial query', 'Biology query about cells', 'Systems query']);
    expect(queries({ concepts: ['finance', 'cell'] })).toEqual(['Financial query', 'Biology query about cells']);
    expect(queries({ domains: ['systems', 'nowhere'] })).toEqual(['Systems query']);
    expect(queries({ min_confidence: 0.75 })).toHaveLength(2);
    expect(queries({ text: 'BIOLOGY   query' })).toEqual(['Biology query about cells']);
    expect(queries({ concepts: ['biology'], min_confidence: 0.85 })).toEqual([]);
    expect(queries({ limit: 1 })).toHaveLength(1);
    clock.now += 1000;
    memory.add(episode('Late query', { confidence: 0.5 }));
    expect(queries({ since: T0 + 1 })).toEqual(['Late query']);
    // Decay orders too: a month-old 0.9 weighs less than a fresh 0.5.
    clock.now += 30 * DAY;
    memory.add(episode('Fresh query', { confidence: 0.5 }));
    expect(queries({})[0]).toBe('Fresh query');
    expect(() => memory.query({ limit: 5000 })).toThrow(/limit must be/);
  });

  it('finds similar queries by Jaccard over words, most similar first, none without a shared word', () => {
    const { memory } = openEpisodicMemory(tempDir());
    memory.add(episode('How to invest in stocks'));
    memory.add(episode('Investment strategies for beginners'));
    memory.add(episode('What is quantum computing?'));
    expect(memory.findSimilarQueries('how to INVEST in stocks').map((s) => [s.episode.query, s.similarity])).toEqual([['How to invest in stocks', 1]]);
    expect(memory.findSimilarQueries('How to invest in bonds')[0]).toMatchObject({ episode: { query: 'How to invest in stocks' }, similarity: 4 / 6 });
    expect(memory.findSimilarQueries('completely unrelated xyz')).toEqual([]);
    expect(memory.findSimilarQueries('what is how', 1)).toHaveLength(1);
  });
});

describe('EpisodicMemory: the cache rule (§9.2 item 3)', () => {
  it('answers the same query from a successful, confident, live episode', () => {
    const { memory } = openEpisodicMemory(tempDir());
    const stored = memory.add(episode('What is a feedback loop?', { confidence: 0.7 }));
    expect(memory.cached('  what is a FEEDBACK loop? ')).toMatchObject({ episode: stored, match: 'same-query', similarity: 1, weight: 1 });
  });

  it('never answers from a failed or unconfident episode, nor below the request header’s threshold', () => {
    const { memory } = openEpisodicMemory(tempDir());
    memory.add(episode('failed query', { success: false }));
    memory.add(episode('unsure query', { confidence: 0.69 }));
    memory.add(episode('fairly sure query', { confidence: 0.8 }));
    expect(memory.cached('failed query')).toBeNull();
    expect(memory.cached('unsure query')).toBeNull();
    expect(memory.cached('fairly sure query')).not.toBeNull();
    expect(memory.cached('fairly sure query', { confidence_threshold: 0.85 })).toBeNull();
    expect(() => memory.cached('fairly sure query', { confidence_threshold: 2 })).toThrow(/confidence_threshold must be/);
  });

  it('an averaged confidence does not make a new unconfident answer cacheable', () => {
    const { memory } = openEpisodicMemory(tempDir());
    memory.add(episode('q', { confidence: 1 }));
    memory.add(episode('q', { response: 'a guess', confidence: 0.5 }));
    expect(memory.get(memory.query()[0]!.id)).toMatchObject({ confidence: 0.75, response_confidence: 0.5 });
    expect(memory.cached('q')).toBeNull();
  });

  it('answers a similar query (Jaccard ≥ 0.8) but not a merely related one; its own failed episode decides', () => {
    const { memory } = openEpisodicMemory(tempDir());
    memory.add(episode('thermostats keep a room at its set point', { response: 'feedback' }));
    // 10 words, the stored 8 among them: 8/10.
    expect(memory.cached('how thermostats keep a room at its target set point')).toMatchObject({ match: 'similar', similarity: 0.8, episode: { response: 'feedback' } });
    // 7 of 8 words shared: 7/9 < 0.8.
    expect(memory.cached('thermostats keep a room at its set temperature')).toBeNull();
    memory.add(episode('how thermostats keep a room at its target set point', { success: false }));
    expect(memory.cached('how thermostats keep a room at its target set point')).toBeNull();
    expect(memory.cached('???')).toBeNull();
  });

  it('the word index finds every similar episode a scan of all of them finds', () => {
    const { memory } = openEpisodicMemory(tempDir());
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const vocabulary = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const pick = (n: number) => [...new Set(Array.from({ length: n }, () => vocabulary[Math.floor(random() * random() * 40)]!))];
    const stored = Array.from({ length: 300 }, () => pick(4 + Math.floor(random() * 8)).join(' '));
    for (const query of stored) memory.add(episode(query, { success: random() > 0.1 }));
    const episodes = memory.query({ limit: 1000 });
    for (let i = 0; i < 300; i += 1) {
      const words = stored[Math.floor(random() * stored.length)]!.split(' ');
      const variant = [...words.slice(0, words.length - Math.floor(random() * 2)), ...pick(Math.floor(random() * 2))].join(' ');
      const best = Math.max(0, ...episodes.filter((e) => e.success && e.query_hash !== queryHash(variant)).map((e) => jaccard(queryWords(variant), queryWords(e.query))).filter((j) => j >= 0.8));
      const own = episodes.find((e) => e.query_hash === queryHash(variant));
      const found = memory.cached(variant);
      if (own) expect(found?.episode.id ?? null).toBe(own.success ? own.id : null);
      else expect(found?.similarity ?? 0).toBe(best);
    }
  });

  it('decays with a 30-day half-life; expired (below 0.25, 60 days) never answers and consolidate drops it', () => {
    const { memory, clock } = openEpisodicMemory(tempDir());
    const old = memory.add(episode('old question'));
    clock.now += 30 * DAY;
    expect(memory.weight(old)).toBeCloseTo(0.5, 12);
    memory.add(episode('newer question'));
    clock.now += 29 * DAY;
    expect(memory.cached('old question')).not.toBeNull();
    clock.now += 2 * DAY;
    expect(memory.cached('old question')).toBeNull();
    expect(memory.cached('newer question')).not.toBeNull();
    expect(memory.consolidate()).toMatchObject({ dropped: 1, untrusted_episodes: 0 });
    expect(memory.get(old.id)).toBeNull();
    expect(memory.query().map((e) => e.query)).toEqual(['newer question']);
  });

  it('the half-life and floor are configurable and checked', () => {
    const { memory, clock } = openEpisodicMemory(tempDir(), { halfLifeDays: 1, floor: 0.5 });
    memory.add(episode('short-lived'));
    clock.now += DAY + 1;
    expect(memory.cached('short-lived')).toBeNull();
    expect(() => openEpisodicMemory(tempDir(), { halfLifeDays: 0 })).toThrow(/halfLifeDays must be/);
    expect(() => openEpisodicMemory(tempDir(), { floor: 1 })).toThrow(/floor must be/);
  });
});

describe('EpisodicMemory: stats and consolidation', () => {
  it('counts trusted episodes and reports the concept and domain pairs named by at least 20% of them', () => {
    const { memory } = openEpisodicMemory(tempDir());
    memory.add(episode('q1', { concepts: ['homeostasis', 'budget'], domains: ['financial', 'biology'], cost_usd: 0.02, confidence: 0.7 }));
    memory.add(episode('q2', { concepts: ['feedback_loop', 'budget'], domains: ['systems'], confidence: 0.8 }));
    memory.add(episode('q3', { concepts: ['homeostasis', 'budget'], domains: ['biology'], success: false, confidence: 0.4 }));
    expect(memory.stats()).toEqual({
      total_episodes: 3,
      total_concepts: 3,
      total_cost: expect.closeTo(0.04, 12) as number,
      average_confidence: expect.closeTo(1.9 / 3, 12) as number,
      success_rate: 2 / 3,
      most_common_concepts: [{ concept: 'budget', count: 3 }, { concept: 'homeostasis', count: 2 }, { concept: 'feedback_loop', count: 1 }],
      most_queried_domains: [{ domain: 'biology', count: 2 }, { domain: 'financial', count: 1 }, { domain: 'systems', count: 1 }],
      untrusted_episodes: 0,
    });
    expect(memory.consolidate()).toEqual({
      dropped: 0,
      untrusted_episodes: 0,
      concept_patterns: [{ names: ['budget', 'homeostasis'], episodes: 2 }, { names: ['budget', 'feedback_loop'], episodes: 1 }],
      domain_patterns: [{ names: ['biology', 'financial'], episodes: 1 }],
    });
  });

  it('an empty memory has zero stats and nothing to consolidate', () => {
    const { memory } = openEpisodicMemory(tempDir());
    expect(memory.stats()).toMatchObject({ total_episodes: 0, average_confidence: 0, success_rate: 0, most_common_concepts: [] });
    expect(memory.consolidate()).toEqual({ dropped: 0, untrusted_episodes: 0, concept_patterns: [], domain_patterns: [] });
  });
});
