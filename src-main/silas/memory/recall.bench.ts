import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openDatabase } from '../../store/database.js';
import { MemoryRepository } from '../../store/repositories/memory.js';
import { MemoryVectorIndex } from '../../store/repositories/memory-vectors.js';
import { sqliteConnection } from '../../store/transaction.js';
import { WalCheckpointer } from '../../store/wal-checkpointer.js';
import { percentilesUs, report } from '../../testing/bench.js';
import { memorySeals } from '../../testing/seals.js';
import { LocalWordVectorEmbedder } from './embedding/local-embedder.js';
import { memorySealer } from './memory-seals.js';
import { MemoryRetriever } from './retriever.js';
import { SemanticMemory } from './semantic-memory.js';
import { loadRecallCorpus } from './testing/recall-corpus/corpus.js';

// Recall of the owner's memory (docs/silas/chronicle-and-memory.md "Figures"): keyword, semantic
// and merged retrieval of the active lane at 10k, 100k and 1M memories, each beside a floor from
// the same run (one row by its id), with growth from 100k to 1M; insert throughput with and
// without embeddings; the background re-embedding's throughput and the longest event-loop turn
// while it runs. Texts are built from the words of the recall corpus (real English, so the local
// word vectors embed them), in one scope as in single-user mode.

let seed = 0x7e57;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const corpus = loadRecallCorpus();
const words = [...new Set(corpus.memories.flatMap((m) => m.content.toLowerCase().match(/[a-z]+/g) ?? []))];
const sentence = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]!).join(' ');
const queries = corpus.queries.map((q) => q.text);
const percentiles = (fn: (i: number) => unknown, runs: number) => percentilesUs(fn, runs, 10);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'silas-recall-bench-'));
  try {
    const { db } = openDatabase(join(dir, 'silas.db'), { create: true });
    const connection = sqliteConnection(db);
    // As in the runtime: the log is checkpointed by a worker thread, not on this loop.
    const checkpointer = new WalCheckpointer(db, join(dir, 'silas.db'), { delayMs: 0 });
    checkpointer.start();
    const memory = new MemoryRepository(db, memorySealer(memorySeals().seals));
    const index = new MemoryVectorIndex(db);
    const embedder = await LocalWordVectorEmbedder.whenReady();
    index.useSpace({ embedder: embedder.id, dimensions: await embedder.dimensions() });
    const semantic = new SemanticMemory({ index, embedder: async () => embedder, audit: { append() {} }, idleMs: 60_000 });
    const retriever = new MemoryRetriever(memory, semantic);
    const byId = connection.prepare('SELECT * FROM silas_memory_items WHERE memory_id = ?');
    const everyVector = connection.prepare("SELECT rowid FROM silas_memory_vectors WHERE embedding MATCH ? AND k = ? AND scope_id = 'owner'").pluck();
    const draft = () => ({ content: sentence(12 + Math.floor(random() * 20)), taint: 'owner' as const, source_kind: 'memory_op', token_count: 30 });
    const ids: string[] = [];

    // Insert throughput at the start: one memory per transaction, as a memory operation writes it.
    let start = performance.now();
    for (let i = 0; i < 2_000; i++) ids.push(memory.store('owner', draft()));
    report('memory.insert.without_embedding', 'items/s', 2_000 / ((performance.now() - start) / 1000), { per_transaction: 1 });
    start = performance.now();
    for (let i = 0; i < 2_000; i++) {
      const item = draft();
      const id = memory.store('owner', item);
      ids.push(id);
      const [vector] = await embedder.embed([item.content]);
      const seq = index.pending(1)[0]!.seq;
      index.put([{ seq, content: item.content, vector: vector! }]);
    }
    report('memory.insert.with_embedding', 'items/s', 2_000 / ((performance.now() - start) / 1000), { per_transaction: 1, embedder: embedder.id });

    let previous: { merged: number; size: number } | null = null;
    // SILAS_BENCH_RECALL_UPTO=100k stops there (the 1M step loads and embeds for many minutes).
    const upto = process.env.SILAS_BENCH_RECALL_UPTO;
    const steps = [['10k', 10_000], ['100k', 100_000], ['1m', 1_000_000]] as const;
    for (const [label, size] of steps.slice(0, upto ? steps.findIndex(([name]) => name === upto) + 1 || steps.length : steps.length)) {
      // Bulk load to the size (the store's own statements, many per transaction).
      const load = connection.transaction((count: number) => {
        for (let i = 0; i < count; i++) ids.push(memory.store('owner', draft()));
      });
      while (ids.length < size) load(Math.min(10_000, size - ids.length));
      // The background re-embedding catches up; its throughput and the longest loop turn meanwhile.
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      // Counted whole here (the index's own count stops at PENDING_COUNT_CAP).
      const pending = (connection.prepare("SELECT count(*) FROM silas_memory_items WHERE reingestion_tier = 'active'").pluck().get() as number) - (connection.prepare('SELECT count(*) FROM silas_memory_embedded').pluck().get() as number);
      start = performance.now();
      await semantic.start();
      semantic.notify();
      await semantic.settled(3_600_000);
      const seconds = (performance.now() - start) / 1000;
      delay.disable();
      report(`memory.reembed.${label}`, 'items/s', pending / seconds, { memories: pending, longest_loop_turn_ms: Number((delay.max / 1e6).toFixed(1)), target_loop_turn_ms: 50 });

      // Cells: learned once the scope is large enough, then every waiting vector filed (vector-cells.ts);
      // this happens within the re-embedding above, whose longest loop turn covers it.
      await semantic.settled(3_600_000, { cells: true });
      const cells = connection.prepare("SELECT cells, trained_on FROM silas_memory_vector_scopes WHERE scope_id = 'owner'").get() as { cells: number; trained_on: number } | undefined;

      const floor = percentiles((i) => byId.get(ids[(i * 7919) % ids.length]), 2_000);
      report(`memory.recall.floor.row_by_id.${label}`, 'us', floor.p50, { role: 'floor', memories: ids.length });
      const keyword = percentiles((i) => retriever.retrieve('owner', { strategy: 'keyword', query: queries[i % queries.length]!, max_results: 5 }, { sessionId: null }), 200);
      report(`memory.recall.keyword.${label}`, 'us', keyword.p50, { p99_us: keyword.p99, memories: ids.length, ratio_to_floor: keyword.p50 / floor.p50 });
      const timed = async (fn: (i: number) => Promise<unknown>, runs: number) => {
        const samples: number[] = [];
        for (let i = 0; i < runs + 5; i++) {
          const t = performance.now();
          await fn(i);
          if (i >= 5) samples.push((performance.now() - t) * 1000);
        }
        samples.sort((a, b) => a - b);
        return { p50: samples[Math.floor(samples.length * 0.5)]!, p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))]! };
      };
      const runs = size >= 1_000_000 ? 40 : 200;
      const meaning = await timed((i) => semantic.search('owner', queries[i % queries.length]!, 15), runs);
      report(`memory.recall.semantic.${label}`, 'us', meaning.p50, { p99_us: meaning.p99, memories: ids.length, ratio_to_floor: meaning.p50 / floor.p50 });
      // What reading the nearest cells finds of what reading every vector finds (the 15 nearest),
      // and what the KNN alone costs, for a few numbers of cells read (the runtime reads 8).
      const queryVectors = await embedder.embed(queries.slice(0, 50));
      const exact = queryVectors.map((vector) => (everyVector.all(Buffer.from(vector.buffer), 15) as number[]).map(Number));
      const wholeScope = percentiles((i) => everyVector.all(Buffer.from(queryVectors[i % queryVectors.length]!.buffer), 15), 20);
      report(`memory.recall.knn.every_vector.${label}`, 'us', wholeScope.p50, { p99_us: wholeScope.p99, memories: ids.length, role: 'floor' });
      for (const probes of [4, 8, 16]) {
        let found = 0;
        queryVectors.forEach((vector, i) => {
          const hits = new Set(index.nearest('owner', vector, 15, probes).map((hit) => hit.seq));
          found += exact[i]!.filter((seq) => hits.has(seq)).length;
        });
        const knn = percentiles((i) => index.nearest('owner', queryVectors[i % queryVectors.length]!, 15, probes), 100);
        report(`memory.recall.knn.cells_${probes}.${label}`, 'us', knn.p50, {
          p99_us: knn.p99,
          found_of_every_vector: found / exact.reduce((n, seqs) => n + seqs.length, 0),
          ratio_to_every_vector: knn.p50 / wholeScope.p50,
          cells: cells?.cells ?? 0,
        });
      }
      const merged = await timed((i) => retriever.recall('owner', queries[i % queries.length]!, 5), runs);
      report(`memory.recall.merged.${label}`, 'us', merged.p50, {
        p99_us: merged.p99,
        memories: ids.length,
        ratio_to_floor: merged.p50 / floor.p50,
        ...(label === '100k' ? { target_p50_us: 10_000 } : {}),
        ...(previous ? { growth_vs_previous: merged.p50 / previous.merged, size_ratio: size / previous.size, linear_or_better: merged.p50 / previous.merged <= size / previous.size } : {}),
      });
      previous = { merged: merged.p50, size };
    }
    await semantic.stop();
    await checkpointer.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
