import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContextItemInput } from '../../../src-shared/silas/context.js';
import type { MemoryDraft } from '../../../src-shared/silas/memory.js';
import { report, percentilesUs, zipfVocabulary } from '../../testing/bench.js';
import { openDatabase } from '../database.js';
import { ChronicleRepository } from './chronicle.js';
import { memorySeals } from '../../testing/seals.js';
import { chronicleSealer, memorySealer } from '../../silas/memory/memory-seals.js';
import { MemoryRepository } from './memory.js';
import { sqliteConnection } from '../transaction.js';

// What a turn reads from SQLite (docs/silas/chronicle-and-memory.md "Figures"): keyword recall over
// the raw lane at 10k and 100k memories, and the chronicle's last 50 entries at 1k and 100k, each
// beside a floor measured in the same run: one row fetched by its key. A real file in WAL mode with
// the runtime's pragmas. Every memory and entry sits in one scope ("owner", single-user mode): the
// scope filter gets no help.

let seed = 0x51a5;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);

// A Zipf-distributed vocabulary, so common words are common and rare ones rare, as in conversation.
const stopwords = ['the', 'we', 'a', 'to', 'and', 'of', 'is', 'it', 'about', 'what', 'did', 'for'];
const { vocabulary, word: zipfWord } = zipfVocabulary(stopwords, random);
const sentence = (words: number) => Array.from({ length: words }, zipfWord).join(' ');
const rareWord = () => vocabulary[2000 + Math.floor(random() * 6000)]!;

const percentiles = (fn: (i: number) => unknown, runs: number) => percentilesUs(fn, runs, 20);

const dir = mkdtempSync(join(tmpdir(), 'silas-bench-'));
try {
  const { db } = openDatabase(join(dir, 'silas.db'), { create: true });
  const sealer = memorySealer(memorySeals().seals);
  const memory = new MemoryRepository(db, sealer);
  const chronicle = new ChronicleRepository(db, chronicleSealer(memorySeals().seals));
  const byMemoryId = sqliteConnection(db).prepare('SELECT * FROM silas_memory_items WHERE memory_id = ?');
  const byChronicleSeq = sqliteConnection(db).prepare('SELECT * FROM silas_chronicle WHERE seq = ?');
  const draft = (): MemoryDraft => ({ content: sentence(30), source_kind: 'conversation_raw', taint: 'owner', token_count: 50 });

  // Queries as the Stream issues them: a whole message (step 4, stopwords included) and an agent's
  // two-word `memory_search` for something specific.
  const messages = Array.from({ length: 64 }, () => `what did we decide about the ${sentence(5)}`);
  const specific = Array.from({ length: 64 }, () => `${rareWord()} ${rareWord()}`);
  // One word in thousands of memories, not a stopword: ranked among the newest matches only.
  const common = vocabulary.slice(stopwords.length, stopwords.length + 64);

  const ids: string[] = [];
  for (const [label, size] of [['10k', 10_000], ['100k', 100_000]] as const) {
    let start = performance.now();
    while (ids.length < size) ids.push(...memory.ingestRaw('owner', Array.from({ length: 1000 }, draft)));
    report(`memory.ingest_raw.batched.${label}`, 'items/s', (size - (label === '10k' ? 0 : 10_000)) / ((performance.now() - start) / 1000), { batch_size: 1000 });
    start = performance.now();
    const one = percentiles(() => ids.push(...memory.ingestRaw('owner', [draft()])), 200);
    report(`memory.ingest_raw.one_per_transaction.${label}`, 'us', one.p50, { p99_us: one.p99, memory_items: memory.count('owner') });

    const floor = percentiles((i) => byMemoryId.get(ids[(i * 7919) % ids.length]), 2000);
    report(`memory.floor.row_by_id.${label}`, 'us', floor.p50, { role: 'floor', memory_items: ids.length });
    const viaRepository = percentiles((i) => memory.get('owner', ids[(i * 7919) % ids.length]!), 2000);
    report(`memory.get.${label}`, 'us', viaRepository.p50, { ratio_to_floor: viaRepository.p50 / floor.p50 });
    for (const [kind, queries] of [['message', messages], ['two_rare_words', specific], ['one_common_word', common]] as const) {
      let hits = 0;
      const search = percentiles((i) => (hits += memory.search('owner', queries[i % queries.length]!, { limit: 5, tier: 'low_reingestion' }).length), 200);
      report(`memory.search.${kind}.${label}`, 'us', search.p50, { p99_us: search.p99, limit: 5, mean_hits: Number((hits / 220).toFixed(2)), memory_items: ids.length, ratio_to_floor: search.p50 / floor.p50 });
    }
    // After a restart: a fresh repository has no cached counts of common words, so its first search reads their doclists.
    const cold = percentiles((i) => new MemoryRepository(db, sealer).search('owner', messages[i % messages.length]!, { limit: 5, tier: 'low_reingestion' }), 40);
    report(`memory.search.message.first_after_open.${label}`, 'us', cold.p50, { p99_us: cold.p99, memory_items: ids.length, ratio_to_floor: cold.p50 / floor.p50 });
  }

  let turn = 0;
  const entry = (): ContextItemInput => ({
    ctx_id: `ctx-${turn}`,
    zone: 'chronicle',
    content: `[owner] owner: ${sentence(40)}`,
    token_count: 70,
    created_at: new Date().toISOString(),
    turn_number: turn++,
    source: 'channel:web',
    taint: 'owner',
    kind: 'message',
  });
  for (const [label, size] of [['1k', 1_000], ['100k', 100_000]] as const) {
    while (turn < size) chronicle.appendMany('owner', Array.from({ length: Math.min(1000, size - turn) }, entry));
    const floor = percentiles((i) => byChronicleSeq.get(1 + ((i * 7919) % turn)), 2000);
    report(`chronicle.floor.row_by_seq.${label}`, 'us', floor.p50, { role: 'floor', chronicle_entries: turn });
    const recent = percentiles(() => chronicle.getRecent('owner', 50), 500);
    report(`chronicle.get_recent_50.${label}`, 'us', recent.p50, { p99_us: recent.p99, chronicle_entries: chronicle.count('owner'), ratio_to_floor: recent.p50 / floor.p50 });
    const append = percentiles(() => chronicle.append('owner', entry()), 200);
    report(`chronicle.append.${label}`, 'us', append.p50, { p99_us: append.p99, synchronous: 'NORMAL' });
  }
  sqliteConnection(db).close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
