import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../store/database.js';
import { inImmediateTransaction, sqliteConnection } from '../../store/transaction.js';
import { report, percentilesUs, zipfVocabulary } from '../../testing/bench.js';
import { memorySeals } from '../../testing/seals.js';
import { episodeSealer } from './episode-seals.js';
import { EpisodicMemory } from './episodic-memory.js';
import { queryHash } from './query-text.js';

/*
 * The episodic-memory cache (spec 004 §9.2 item 3; docs/ilp.md "Attention and episodic memory"):
 * p50 and p99 of one `cached()` lookup at 1,000, 10,000 and 100,000 episodes, beside a floor
 * measured in the same run: a plain indexed SELECT of one episode by its query hash. Three
 * lookups: the same query (the hash, then one seal), a similar one (one word added: Jaccard
 * n/(n+1), found through the word index and its seal checked) and a miss (no similar episode). A
 * real file in WAL mode with the runtime's pragmas; queries of 8 to 12 words from a
 * Zipf-distributed vocabulary, so common words are common.
 * Run: node --import tsx src-main/ilp/memory/episodes.bench.ts
 */

let seed = 0x1a7;
// Math.imul keeps the product in 32 bits; a float product would lose its low bits and cycle early.
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const { word: zipfWord } = zipfVocabulary(['how', 'what', 'is', 'the', 'a', 'to', 'my', 'i', 'can', 'of', 'in', 'for'], random);
/** A query of `n` distinct words. */
function question(n = 8 + Math.floor(random() * 5)): string[] {
  const words = new Set<string>();
  while (words.size < n) words.add(zipfWord());
  return [...words];
}

const percentiles = (fn: (i: number) => unknown, runs: number) => percentilesUs(fn, runs, 50);

const dir = mkdtempSync(join(tmpdir(), 'silas-bench-'));
try {
  const { db } = openDatabase(join(dir, 'silas.db'), { create: true });
  const memory = new EpisodicMemory(db, episodeSealer(memorySeals().seals));
  const byHash = sqliteConnection(db).prepare('SELECT * FROM ilp_episodes WHERE query_hash = ?');
  const stored: string[][] = [];
  const add = (words: string[]) => {
    memory.add({ query: words.join(' '), response: 'A stored answer of a few sentences. '.repeat(8), concepts: ['budget', 'homeostasis'], domains: ['financial'], agents_used: ['financial'], cost_usd: 0.01, success: true, confidence: 0.9 });
    stored.push(words);
  };

  for (const [label, size] of [['1k', 1_000], ['10k', 10_000], ['100k', 100_000]] as const) {
    const start = performance.now();
    const before = stored.length;
    while (stored.length < size) inImmediateTransaction(db, () => Array.from({ length: 1000 }, () => add(question())));
    report(`ilp.memory.add.${label}`, 'episodes/s', (size - before) / ((performance.now() - start) / 1000), { batch_size: 1000 });

    const picks = Array.from({ length: 64 }, () => stored[Math.floor(random() * stored.length)]!);
    const same = picks.map((words) => words.join(' '));
    // One word added that the query lacks: Jaccard n/(n+1), 8/9 to 12/13.
    const similar = picks.map((words) => [...words, `${words.at(-1)!}x`].join(' '));
    const misses = Array.from({ length: 64 }, () => question().join(' '));
    const hashes = same.map(queryHash);

    const floor = percentiles((i) => byHash.get(hashes[i % 64]!), 2000);
    const extra = (p: { p50: number; p99: number }) => ({ p99_us: Number(p.p99.toFixed(1)), episodes: size, floor_select_by_hash_us: Number(floor.p50.toFixed(1)), ratio_to_floor: Number((p.p50 / floor.p50).toFixed(2)) });
    report(`ilp.memory.select_by_hash.${label}`, 'µs p50', floor.p50, { p99_us: Number(floor.p99.toFixed(1)), episodes: size, floor: true });
    for (const [kind, queries, expectHit] of [['same', same, true], ['similar', similar, true], ['miss', misses, false]] as const) {
      let hits = 0;
      const p = percentiles((i) => (memory.cached(queries[i % 64]!) ? (hits += 1) : 0), 2000);
      if (expectHit !== hits > 0) throw new Error(`ilp.memory.cache_lookup_${kind}.${label}: expected ${expectHit ? 'hits' : 'misses'}`);
      report(`ilp.memory.cache_lookup_${kind}.${label}`, 'µs p50', p.p50, extra(p));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
