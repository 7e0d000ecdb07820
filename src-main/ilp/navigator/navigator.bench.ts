import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IlpSliceIndex } from '../../store/repositories/ilp-slice-index.js';
import { report, percentilesUs, zipfVocabulary } from '../../testing/bench.js';
import { conceptKey, SliceNavigator } from './navigator.js';

/*
 * The slice navigator (docs/ilp.md "Navigator and slices"): search latency, p50 and p95, over
 * 1,000, 10,000 and 100,000 generated slice files, each beside a floor measured in the same run on
 * the same slices: one raw FTS5 MATCH of the query's first word, unranked, LIMIT 10 (the least any
 * text search of the table costs). Queries mix an exact concept, a part of one (four letters) and a
 * question holding two concepts. Also loading: files read, checked (YAML, schema, injection scan)
 * and indexed per second. Target: search p50 ≤ 5 ms at 10,000 slices.
 * Run: node bin/run-bench.js navigator.bench
 */

const TARGET_P50_MS = 5;
let seed = 0x11f;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

// Zipf-distributed words, so some concepts are in thousands of slices and most in a few.
const { word: zipfWord } = zipfVocabulary([], random);
const words = (n: number) => Array.from({ length: n }, zipfWord).join(' ');
const concept = () => (random() < 0.5 ? zipfWord() : `${zipfWord()}_${zipfWord()}`);
const DOMAINS = Array.from({ length: 20 }, (_, i) => `domain-${i}`);

interface Generated {
  id: string;
  domain: string;
  title: string;
  concepts: string[];
  knowledge: string;
}

function generate(n: number): Generated[] {
  return Array.from({ length: n }, (_, i) => ({ id: `slice-${i}`, domain: pick(DOMAINS), title: words(4), concepts: [...new Set(Array.from({ length: 6 }, concept))], knowledge: words(120) }));
}

function yamlOf(s: Generated, n: number): string {
  const links = [pick(DOMAINS), pick(DOMAINS)].map((d, k) => `${d}: slice-${(Number(s.id.slice(6)) + 1 + k * 7) % n}`);
  return `metadata:\n  id: ${s.id}\n  domain: ${s.domain}\n  title: ${s.title}\n  concepts: [${s.concepts.join(', ')}]\n  connects_to: {${[...new Map(links.map((l) => [l.split(':')[0], l])).values()].join(', ')}}\n  tags: [generated]\n  version: "1.0"\nknowledge: |\n  ${s.knowledge}\nprinciples:\n  - "${words(8)}"\n`;
}

/** Percentiles in milliseconds. */
function percentiles(fn: (i: number) => unknown, runs: number): { p50: number; p95: number } {
  const us = percentilesUs(fn, runs);
  return { p50: us.p50 / 1000, p95: us.p95 / 1000 };
}
const ms = (value: number) => Number(value.toFixed(3));

const base = mkdtempSync(join(tmpdir(), 'silas-navigator-bench-'));
try {
  for (const [label, size] of [['1k', 1_000], ['10k', 10_000], ['100k', 100_000]] as const) {
    const slices = generate(size);
    const root = join(base, label);
    for (let i = 0; i < size; i += 1) {
      const folder = join(root, `part-${Math.floor(i / 1000)}`);
      if (i % 1000 === 0) mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `${slices[i]!.id}.slice.yaml`), yamlOf(slices[i]!, size));
    }
    const start = performance.now();
    const navigator = new SliceNavigator([root]);
    const loadSeconds = (performance.now() - start) / 1000;
    if (navigator.getStats().total_slices !== size) throw new Error(`bench: ${navigator.getStats().total_slices} of ${size} slices loaded: ${JSON.stringify(navigator.problems().slice(0, 3))}`);
    report(`ilp.navigator.load_${label}`, 'slices/s', size / loadSeconds, { slices: size, seconds: ms(loadSeconds) });

    // The floor's table: the same slices in the same schema, with nothing of the navigator around it.
    const floorIndex = new IlpSliceIndex();
    floorIndex.batch(() => {
      for (const s of slices) floorIndex.put({ ...s, concepts: s.concepts.map((written) => ({ written, key: conceptKey(written) })), tags: ['generated'], file: s.id });
    });
    const queries = Array.from({ length: 300 }, (_, i) => {
      const s = pick(slices);
      const c = pick(s.concepts);
      if (i % 3 === 0) return c;
      if (i % 3 === 1) return c.slice(0, 4);
      return `how does ${c.replaceAll('_', ' ')} relate to ${pick(pick(slices).concepts).replaceAll('_', ' ')}`;
    });
    const firstWord = queries.map((q) => (q.startsWith('how ') ? q.split(' ')[2]! : q.split('_')[0]!));
    const search = percentiles((i) => navigator.search(queries[i % queries.length]!, { limit: 10 }), 600);
    const floor = percentiles((i) => floorIndex.matchFloor(firstWord[i % firstWord.length]!, 10), 600);
    report(`ilp.navigator.search_${label}`, 'ms p50', search.p50, {
      p95_ms: ms(search.p95),
      slices: size,
      floor_fts5_match_p50_ms: ms(floor.p50),
      floor_fts5_match_p95_ms: ms(floor.p95),
      ratio_to_floor: Number((search.p50 / floor.p50).toFixed(1)),
      target_p50_ms: TARGET_P50_MS,
    });
    floorIndex.close();
    navigator.close();
    rmSync(root, { recursive: true, force: true });
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
