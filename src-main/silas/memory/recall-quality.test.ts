import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingModelConfig } from '../../../src-shared/llm/config.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { openDatabase } from '../../store/database.js';
import { MemoryVectorIndex } from '../../store/repositories/memory-vectors.js';
import { memorySeals } from '../../testing/seals.js';
import { useTempDirs } from '../../testing/temp.js';
import type { Embedder } from './embedding/embedder.js';
import { LocalWordVectorEmbedder } from './embedding/local-embedder.js';
import { OpenAICompatibleEmbedder } from './embedding/openai-compatible-embedder.js';
import { startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from './embedding/testing/scripted-embeddings-server.js';
import { memorySealer } from './memory-seals.js';
import { MemoryRetriever } from './retriever.js';
import { SemanticMemory } from './semantic-memory.js';
import { loadRecallCorpus } from './testing/recall-corpus/corpus.js';
import { formatRecallReport, recallAtK, type RecallReport } from './testing/recall-corpus/recall.js';
import { storeRecallCorpus, storedIdRetriever } from './testing/recall-corpus/recall-repository.js';

/*
 * Retrieval quality on the labelled corpus (testing/recall-corpus/README.md: 638 memories, 199
 * queries, 72 of them paraphrases sharing no content word with their target): recall@5 of the
 * keyword branch, the semantic branch with the local word vectors and with an embeddings server,
 * and the merged retriever, as the Stream and the Memory page use them. The figures are printed
 * for the note; the assertions hold the claims that matter: meaning finds what words
 * cannot, and merging keeps what keywords find while adding it.
 */

const tempDir = useTempDirs('silas-recall-quality-');
const corpus = loadRecallCorpus();
const reports = new Map<string, RecallReport>();
let server: ScriptedEmbeddingsServer;

async function scoreWith(label: string, embedder: Embedder) {
  const { db } = openDatabase(join(tempDir(), `${label}.db`), { create: true });
  const stored = storeRecallCorpus(db, memorySealer(memorySeals().seals), corpus);
  const semantic = new SemanticMemory({ index: new MemoryVectorIndex(db), embedder: async () => embedder, audit: { append() {} }, idleMs: 5, batchSize: 64 });
  await semantic.start();
  await semantic.settled(120_000);
  const retriever = new MemoryRetriever(stored.repository, semantic, { now: () => new Date(corpus.referenceTime) });
  const ids = (hits: { item: { memory_id: string } }[]) => hits.map((hit) => hit.item.memory_id);
  const score = async (name: string, search: (query: string, k: number) => Promise<string[]>) => {
    const report = await recallAtK(corpus, storedIdRetriever(stored, search), 5);
    reports.set(name, report);
    console.log(formatRecallReport(name, report));
    return report;
  };
  const keyword = await score('keyword', async (query, k) => ids(await retriever.retrieve('owner', { strategy: 'keyword', query, max_results: k }, { sessionId: null })));
  const meaning = await score(`semantic (${label})`, async (query, k) => {
    const hits = await semantic.search('owner', query, k);
    const items = stored.repository.bySeqs('owner', hits.map((hit) => hit.seq));
    return hits.flatMap((hit) => (items.has(hit.seq) ? [items.get(hit.seq)!.memory_id] : []));
  });
  const merged = await score(`merged (${label})`, async (query, k) => ids(await retriever.retrieve('owner', { strategy: 'semantic', query, max_results: k }, { sessionId: null })));
  const recall = await score(`automatic recall (${label}, similarity floor)`, async (query, k) => ids(await retriever.recall('owner', query, k)));
  await semantic.stop();
  return { keyword, meaning, merged, recall };
}

beforeAll(async () => {
  server = await startScriptedEmbeddingsServer({ dimensions: 64 });
});
afterAll(async () => {
  await server.close();
  console.log(['recall@5 on the labelled corpus:', ...[...reports].map(([name, report]) => `  ${formatRecallReport(name, report)}`)].join('\n'));
});

describe('retrieval quality (recall@5 on 638 memories and 199 labelled queries)', () => {
  it('local word vectors: meaning finds paraphrases keywords cannot, and the merge beats keyword alone on them', async () => {
    const { keyword, meaning, merged, recall } = await scoreWith('local word vectors', await LocalWordVectorEmbedder.whenReady());
    expect(keyword.byKind.paraphrase).toBeLessThan(0.15);
    expect(meaning.byKind.paraphrase).toBeGreaterThan(keyword.byKind.paraphrase + 0.15);
    expect(merged.byKind.paraphrase).toBeGreaterThan(keyword.byKind.paraphrase);
    expect(recall.byKind.paraphrase).toBeGreaterThan(keyword.byKind.paraphrase);
    // Merging keeps most of what the words find.
    expect(merged.byKind.keyword).toBeGreaterThan(0.8);
  }, 180_000);

  it('an OpenAI-compatible embeddings server (scripted, 64 dimensions): the same, through the wire format', async () => {
    const secrets = new NamedSecrets(new MemorySecretStore());
    const config = EmbeddingModelConfig.parse({ provider: 'openai-compatible', model: 'scripted-embeddings', baseUrl: server.baseUrl, dimensions: 64 });
    const { keyword, meaning, merged } = await scoreWith('embeddings server', new OpenAICompatibleEmbedder({ config, secrets }));
    expect(meaning.byKind.paraphrase).toBeGreaterThan(keyword.byKind.paraphrase + 0.1);
    expect(merged.byKind.paraphrase).toBeGreaterThan(keyword.byKind.paraphrase);
    expect(server.requests.length).toBeGreaterThan(0);
  }, 180_000);
});
