import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { memorySeals } from '../../testing/seals.js';
import { memorySealer } from '../../silas/memory/memory-seals.js';
import { hashedEmbedder } from '../../silas/memory/testing/hashed-embedder.js';
import { openDatabase } from '../database.js';
import { sqliteConnection } from '../transaction.js';
import { MemoryRepository } from './memory.js';
import { MemoryVectorIndex, PENDING_COUNT_CAP, WORK_SQL } from './memory-vectors.js';

const tempDir = useTempDirs('silas-memory-vectors-');

function open(file = join(tempDir(), 'silas.db')) {
  const { db } = openDatabase(file, { create: true });
  const { seals } = memorySeals();
  return { db, file, memory: new MemoryRepository(db, memorySealer(seals)), index: new MemoryVectorIndex(db) };
}

const draft = (content: string) => ({ content, taint: 'owner' as const, source_kind: 'memory_op', token_count: 5 });
const embedder = hashedEmbedder({ synonyms: [['tabs', 'tab', 'indent', 'indentation'], ['editor', 'vim', 'neovim']] });

async function embedPending(index: MemoryVectorIndex) {
  const pending = index.pending(100);
  const vectors = await embedder.embed(pending.map((p) => p.content));
  return index.put(pending.map((p, i) => ({ seq: p.seq, content: p.content, vector: vectors[i]! })));
}

async function near(index: MemoryVectorIndex, memory: MemoryRepository, scope: string, text: string, limit = 3) {
  const [vector] = await embedder.embed([text]);
  const hits = index.nearest(scope, vector!, limit);
  const items = memory.bySeqs(scope, hits.map((h) => h.seq));
  return hits.map((h) => items.get(h.seq)?.content);
}

describe('MemoryVectorIndex: one vector space, current vectors only', () => {
  it('embeds the active lane only, finds by meaning within the scope, and never reads another scope', async () => {
    const { memory, index } = open();
    index.useSpace({ embedder: embedder.id, dimensions: 64 });
    memory.store('owner', draft('prefers tabs'));
    memory.store('owner', draft('uses neovim daily'));
    memory.store('scope-other', draft('likes indentation with tabs'));
    memory.ingestRaw('owner', [draft('raw: indentation log line')]);
    expect(index.pendingCount()).toBe(3);
    expect(await embedPending(index)).toBe(3);
    expect(index.pendingCount()).toBe(0);
    expect(await near(index, memory, 'owner', 'indent', 1)).toEqual(['prefers tabs']);
    expect(await near(index, memory, 'owner', 'which editor', 1)).toEqual(['uses neovim daily']);
    // Never the raw lane, never another scope.
    expect(await near(index, memory, 'owner', 'indentation', 5)).not.toContain('raw: indentation log line');
    expect(await near(index, memory, 'owner', 'indentation', 5)).not.toContain('likes indentation with tabs');
  });

  it('a changed memory drops out until re-embedded, and a deleted one is never returned', async () => {
    const { memory, index } = open();
    index.useSpace({ embedder: embedder.id, dimensions: 64 });
    const changed = memory.store('owner', draft('prefers tabs'));
    const gone = memory.store('owner', draft('indentation with tab characters'));
    await embedPending(index);
    memory.update('owner', changed, { content: 'drinks green tea', token_count: 3, taint: 'owner' });
    memory.delete('owner', gone);
    expect(await near(index, memory, 'owner', 'tabs', 5)).toEqual([]);
    expect(index.pending(10).map((p) => p.content)).toEqual(['drinks green tea']);
    await embedPending(index);
    expect(await near(index, memory, 'owner', 'green tea', 1)).toEqual(['drinks green tea']);
  });

  it('a vector for content that changed while it was embedded is not stored', async () => {
    const { memory, index } = open();
    index.useSpace({ embedder: embedder.id, dimensions: 64 });
    const id = memory.store('owner', draft('prefers tabs'));
    const [pending] = index.pending(1);
    const [vector] = await embedder.embed([pending!.content]);
    memory.update('owner', id, { content: 'prefers spaces', token_count: 2, taint: 'owner' });
    expect(index.put([{ seq: pending!.seq, content: pending!.content, vector: vector! }])).toBe(0);
    expect(index.pending(5).map((p) => p.content)).toEqual(['prefers spaces']);
  });

  it('a new embedder or dimension drops every vector (never two spaces mixed); the same one keeps them across a reopen', async () => {
    const { db, file, memory, index } = open();
    expect(index.useSpace({ embedder: embedder.id, dimensions: 64 })).toEqual({ reset: true, previous: null });
    memory.store('owner', draft('prefers tabs'));
    await embedPending(index);
    sqliteConnection(db).close();

    const again = open(file);
    expect(again.index.useSpace({ embedder: embedder.id, dimensions: 64 })).toEqual({ reset: false, previous: { embedder: embedder.id, dimensions: 64 } });
    expect(again.index.pendingCount()).toBe(0);
    expect(again.index.useSpace({ embedder: 'openai-compatible:http://127.0.0.1:1/v1#other', dimensions: 64 })).toEqual({ reset: true, previous: { embedder: embedder.id, dimensions: 64 } });
    expect(again.index.pendingCount()).toBe(1);
    expect(again.index.useSpace({ embedder: 'openai-compatible:http://127.0.0.1:1/v1#other', dimensions: 32 })).toMatchObject({ reset: true });
    // The new space is the stored one: naming it again keeps its vectors.
    expect(again.index.useSpace({ embedder: 'openai-compatible:http://127.0.0.1:1/v1#other', dimensions: 32 })).toMatchObject({ reset: false });
    const [pending] = again.index.pending(1);
    expect(() => again.index.put([{ seq: pending!.seq, content: pending!.content, vector: new Float32Array(64) }])).toThrow(/64 dimensions cannot join a space of 32/);
    expect(() => again.index.nearest('owner', new Float32Array(64), 3)).toThrow(/64 dimensions cannot search a space of 32/);
  });

  it('a home from before cells (one vec0 table without them) is re-embedded once into the table with cells', async () => {
    const { db, file, memory, index } = open();
    index.useSpace({ embedder: embedder.id, dimensions: 64 });
    memory.store('owner', draft('prefers tabs'));
    await embedPending(index);
    const sql = sqliteConnection(db);
    // Migration 025's layout, as an earlier version left it.
    sql.exec('DROP TABLE silas_memory_vectors');
    sql.exec('CREATE VIRTUAL TABLE silas_memory_vec USING vec0(scope_id TEXT PARTITION KEY, embedding float[64] distance_metric=l2)');
    sql.close();

    const again = open(file);
    expect(again.index.useSpace({ embedder: embedder.id, dimensions: 64 })).toMatchObject({ reset: true });
    const tables = sqliteConnection(again.db).prepare("SELECT name FROM sqlite_master WHERE name IN ('silas_memory_vec', 'silas_memory_vectors')").pluck().all();
    expect(tables).toEqual(['silas_memory_vectors']);
    expect(again.index.pendingCount()).toBe(1);
    await embedPending(again.index);
    expect(await near(again.index, again.memory, 'owner', 'indent', 1)).toEqual(['prefers tabs']);
  });

  it('finds work by key or from a mark: no statement the background loop repeats reads every memory', () => {
    const { db } = open();
    const sql = sqliteConnection(db);
    for (const [name, text] of Object.entries(WORK_SQL)) {
      const params = (text.match(/\?/g) ?? []).map(() => 1);
      const plan = (sql.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]).map((row) => row.detail);
      // A scan is allowed of the re-embedding queue and of the index of waiting vectors only.
      expect({ name, scans: plan.filter((detail) => /^SCAN /.test(detail) && !/^SCAN q\b/.test(detail) && !/silas_memory_embedded_waiting/.test(detail)) }).toEqual({ name, scans: [] });
    }
  });

  it('counts what waits only up to its cap, so a large backlog is never a scan of the whole store', () => {
    const { db, memory, index } = open();
    index.useSpace({ embedder: embedder.id, dimensions: 64 });
    sqliteConnection(db).transaction(() => {
      for (let i = 0; i < PENDING_COUNT_CAP + 50; i++) memory.store('owner', draft(`memory ${i}`));
    })();
    expect(index.pendingCount()).toBe(PENDING_COUNT_CAP);
    expect(index.pending(3).map((p) => p.content)).toEqual(['memory 0', 'memory 1', 'memory 2']);
  });

  it('refuses bad limits and dimensions with the allowed range', () => {
    const { index } = open();
    expect(() => index.useSpace({ embedder: 'x', dimensions: 0 })).toThrow(/expected a whole number from 1 to 8192/);
    index.useSpace({ embedder: 'x', dimensions: 4 });
    expect(() => index.nearest('owner', new Float32Array(4), -1)).toThrow(/from 0 to 400/);
  });
});
