import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../store/database.js';
import { MemoryRepository } from '../../store/repositories/memory.js';
import { MemoryVectorIndex } from '../../store/repositories/memory-vectors.js';
import { sqliteConnection } from '../../store/transaction.js';
import { memorySeals } from '../../testing/seals.js';
import { useTempDirs } from '../../testing/temp.js';
import { LocalWordVectorEmbedder } from './embedding/local-embedder.js';
import { memorySealer } from './memory-seals.js';
import { SemanticMemory } from './semantic-memory.js';
import { hashedEmbedder } from './testing/hashed-embedder.js';
import { loadRecallCorpus } from './testing/recall-corpus/corpus.js';
import { maintainCells, sphericalKMeans } from './vector-cells.js';

const tempDir = useTempDirs('silas-vector-cells-');
const corpus = loadRecallCorpus();
const words = [...new Set(corpus.memories.flatMap((m) => m.content.toLowerCase().match(/[a-z]+/g) ?? []))];
let seed = 0x5eed;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const sentence = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]!).join(' ');
const draft = (content: string) => ({ content, taint: 'owner' as const, source_kind: 'memory_op', token_count: 20 });

function open() {
  const { db } = openDatabase(join(tempDir(), 'silas.db'), { create: true });
  return { db, memory: new MemoryRepository(db, memorySealer(memorySeals().seals)), index: new MemoryVectorIndex(db) };
}

const hooks = { stopped: () => false, trained: () => {} };

describe('cells of the semantic index: a search reads the cells nearest the query', () => {
  it('finds what a search of every vector finds, files new memories in cells, and falls back to every vector when the centroids are tampered with', async () => {
    const { db, memory, index } = open();
    const embedder = await LocalWordVectorEmbedder.whenReady();
    const dimensions = await embedder.dimensions();
    index.useSpace({ embedder: embedder.id, dimensions });
    for (const m of corpus.memories) memory.store('owner', draft(m.content));
    for (let i = 0; i < 3_000; i++) memory.store('owner', draft(sentence(12 + Math.floor(random() * 20))));
    memory.store('elsewhere', draft('a memory of another scope'));
    for (let pending = index.pending(400); pending.length > 0; pending = index.pending(400)) {
      const vectors = await embedder.embed(pending.map((p) => p.content));
      index.put(pending.map((p, i) => ({ seq: p.seq, content: p.content, vector: vectors[i]! })));
    }
    const queries = await embedder.embed(corpus.queries.slice(0, 60).map((q) => q.text));
    const exact = queries.map((q) => index.nearest('owner', q, 5).map((hit) => hit.seq));

    // Trained with 32 cells: a search reads 8 of them and cell 0.
    expect(await maintainCells(index, dimensions, hooks, { trainAt: 2_000, cells: 32 })).toBe(true);
    const connection = sqliteConnection(db);
    const waiting = connection.prepare('SELECT count(*) FROM silas_memory_embedded WHERE cell = 0').pluck();
    expect(waiting.get()).toBeGreaterThan(3_000);
    while (await maintainCells(index, dimensions, hooks, { trainAt: 2_000, cells: 32 }));
    // Only the other scope's vector (never trained: one vector) still waits.
    expect(waiting.get()).toBe(1);
    const filed = queries.map((q) => index.nearest('owner', q, 5).map((hit) => hit.seq));
    const overlap = filed.reduce((sum, seqs, i) => sum + seqs.filter((seq) => exact[i]!.includes(seq)).length / Math.max(1, exact[i]!.length), 0) / filed.length;
    // Most of the 5 nearest are found (the bench measures the share at 100,000 and 1,000,000 memories).
    expect(overlap).toBeGreaterThanOrEqual(0.8);

    // (This index keeps the layout it read before.) Centroids rewritten by a database writer do not read as a layout: the search reads every vector, still exact.
    connection.prepare("UPDATE silas_memory_vector_cells SET centroid = x'00' WHERE cell = 3").run();
    const reopened = new MemoryVectorIndex(db);
    reopened.useSpace({ embedder: embedder.id, dimensions });
    expect(queries.map((q) => reopened.nearest('owner', q, 5).map((hit) => hit.seq))).toEqual(exact);

    // A memory stored after training is filed in its cell at once and found.
    const late = memory.store('owner', draft('the quarterly budget review moved to thursday afternoon'));
    const [pending] = index.pending(5);
    const [vector] = await embedder.embed([pending!.content]);
    index.put([{ seq: pending!.seq, content: pending!.content, vector: vector! }]);
    expect(connection.prepare('SELECT e.cell FROM silas_memory_embedded e JOIN silas_memory_items m ON m.seq = e.seq WHERE m.memory_id = ?').pluck().get(late)).toBeGreaterThan(0);
    expect(index.nearest('owner', vector!, 1)[0]!.seq).toBe(pending!.seq);
    // Another scope is never read.
    expect(index.nearest('elsewhere', vector!, 5)).toHaveLength(1);

    // A new embedder drops the cells with the vectors.
    index.useSpace({ embedder: 'another', dimensions: 8 });
    expect(connection.prepare('SELECT count(*) FROM silas_memory_vector_cells').pluck().get()).toBe(0);
    expect(connection.prepare('SELECT count(*) FROM silas_memory_vector_scopes').pluck().get()).toBe(0);
  });

  it('k-means puts each of three far-apart groups under its own centroid', async () => {
    const axis = (d: number, jitter: number) => {
      const v = new Float32Array(8);
      v[d] = 1;
      v[(d + 1) % 8] = jitter;
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const points = [0, 3, 6].flatMap((d) => Array.from({ length: 30 }, (_, i) => axis(d, (i % 5) / 20)));
    const centroids = (await sphericalKMeans(points, 8, 3, 6, { stopped: () => false }))!;
    const strongest = centroids.map((c) => [...c].indexOf(Math.max(...c))).sort();
    expect(strongest).toEqual([0, 3, 6]);
    expect(await sphericalKMeans(points, 8, 3, 6, { stopped: () => true })).toBeNull();
  });

  it('the background loop trains a scope once it is large enough, files its vectors and records it in the ledger', async () => {
    const { memory, index } = open();
    const embedder = hashedEmbedder({ dimensions: 32 });
    const appended: { type: string; data: Record<string, unknown> }[] = [];
    const semantic = new SemanticMemory({ index, embedder: async () => embedder, audit: { append: (type, data) => appended.push({ type, data }) }, idleMs: 50, cells: { trainAt: 300, cells: 8 } });
    for (let i = 0; i < 400; i++) memory.store('owner', draft(sentence(10)));
    await semantic.start();
    await semantic.settled(60_000, { cells: true });
    await semantic.stop();
    const trained = appended.filter((entry) => entry.type === 'silas.memory.cells_trained');
    expect(trained).toHaveLength(1);
    expect(trained[0]!.data).toMatchObject({ scope_id: 'owner', cells: 8, sample: 400 });
    expect(index.cellWork()).toEqual([]);
  });
});
