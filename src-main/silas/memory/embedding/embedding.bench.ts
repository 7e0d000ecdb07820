import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { queryWords } from '../../../store/repositories/fts-query.js';
import { report } from '../../../testing/bench.js';
import { vectorsOf } from './embeddings-answer.js';
import { LocalWordVectorEmbedder } from './local-embedder.js';
import { wordsOf } from './word-tokens.js';
import { defaultTablePath, readWordVectorTable } from './word-vector-table.js';

// The local embedder (docs/silas/memory-embedding.md "Figures"): loading the table, and embedding
// 1 KB and 64 KB texts, each beside a floor measured in the same run: reading the table's bytes
// without checking or viewing them; the same texts through the keyword search's `queryWords`
// (32 words at most) and through the embedder's own tokenizer alone. The longest the event loop
// waited during a 64 KB batch shows the slices (docs/architecture.md §1). Last, checking a remote
// answer of 64 vectors of 1536 dimensions beside a bare JSON.parse of it.

let seed = 0x5eed;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const SENTENCES = [
  'I prefer tabs over spaces for indentation in every project.',
  'The meeting with the bank was moved to Thursday afternoon.',
  'Deploy the website to production every Friday after the tests pass.',
  'My daughter is allergic to peanuts, so check the labels.',
  'The nightly database backup failed because the disk was full.',
  'Remind me to renew the passport before the trip to Japan in July.',
  'Use the staging server for experiments, never the live one.',
  'The invoice from the contractor lists the wrong amount for the roof repair.',
];
const textOf = (bytes: number) => {
  let text = '';
  while (text.length < bytes) text += `${SENTENCES[Math.floor(random() * SENTENCES.length)]!} `;
  return text.slice(0, bytes);
};

async function medianMs(fn: () => Promise<unknown>, runs: number): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/** Texts per second through `fn`, for about a second after a warm-up. */
function rate(fn: (text: string) => unknown, texts: readonly string[]): number {
  for (const text of texts.slice(0, 8)) fn(text);
  const start = performance.now();
  let done = 0;
  while (performance.now() - start < 1000) {
    for (const text of texts) fn(text);
    done += texts.length;
  }
  return done / ((performance.now() - start) / 1000);
}

const embedder = await LocalWordVectorEmbedder.whenReady();
const path = defaultTablePath();
const floorRead = await medianMs(() => readFile(path), 15);
report('embedding.floor.table_read', 'ms', floorRead, { role: 'floor', bytes: (await readFile(path)).length });
const load = await medianMs(() => readWordVectorTable(path), 15);
report('embedding.table_load', 'ms', load, { ratio_to_floor: load / floorRead });

for (const [label, bytes, count] of [['1kb', 1024, 256], ['64kb', 65_536, 16]] as const) {
  const texts = Array.from({ length: count }, () => textOf(bytes));
  const words = [...wordsOf(texts[0]!)].length;
  const floorQuery = rate((text) => queryWords(text), texts);
  report(`embedding.floor.query_words.${label}`, 'texts/s', floorQuery, { role: 'floor', words_kept: queryWords(texts[0]!).length });
  const floorTokens = rate((text) => [...wordsOf(text)].length, texts);
  report(`embedding.floor.tokenize.${label}`, 'texts/s', floorTokens, { role: 'floor', words });
  const batch = await medianMs(() => embedder.embed(texts), 5);
  const perSecond = count / (batch / 1000);
  report(`embedding.local.${label}`, 'texts/s', perSecond, { mb_per_s: (perSecond * bytes) / 2 ** 20, words_per_text: words, ratio_to_tokenize: floorTokens / perSecond });
}

const long = Array.from({ length: 16 }, () => textOf(65_536));
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
await embedder.embed(long);
delay.disable();
report('embedding.local.64kb.longest_loop_wait', 'ms', delay.max / 1e6, { texts: long.length, note: 'slices of about 4 ms' });

const vector = () => Array.from({ length: 1536 }, () => random() * 2 - 1);
const answer = JSON.stringify({ object: 'list', data: Array.from({ length: 64 }, (_, index) => ({ object: 'embedding', index, embedding: vector() })) });
const floorParse = await medianMs(async () => JSON.parse(answer), 30);
report('embedding.floor.json_parse.64x1536', 'ms', floorParse, { role: 'floor', bytes: answer.length });
const check = await medianMs(async () => vectorsOf(answer, { what: 'bench', inputs: 64, dimensions: { value: 1536, source: 'configured' } }), 30);
report('embedding.remote.answer_check.64x1536', 'ms', check, { ratio_to_floor: check / floorParse });
