import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../store/database.js';
import { memorySeals } from '../../../../testing/seals.js';
import { useTempDirs } from '../../../../testing/temp.js';
import { memorySealer } from '../../memory-seals.js';
import { loadRecallCorpus, type RecallCorpus } from './corpus.js';
import { formatRecallReport, recallAtK, type RecallRetriever } from './recall.js';
import { keywordRetriever, storeRecallCorpus, storedIdRetriever } from './recall-repository.js';

const tempDir = useTempDirs('silas-recall-');

const memory = (id: string, content: string) => ({ id, content, memory_type: 'fact' as const, created_at: '2025-01-01T00:00:00.000Z' });
const small: RecallCorpus = {
  referenceTime: '2026-01-01T00:00:00.000Z',
  memories: ['m001', 'm002', 'm003', 'm004', 'm005', 'm006', 'm007'].map((id) => memory(id, `memory ${id}`)),
  queries: [
    { id: 'q001', text: 'one', relevant: ['m001'], kind: 'keyword' },
    { id: 'q002', text: 'two', relevant: ['m002', 'm003'], kind: 'mixed' },
    { id: 'q003', text: 'three', relevant: ['m007'], kind: 'paraphrase' },
  ],
};
const answering = (answers: Record<string, string[]>): RecallRetriever => ({ retrieve: (query) => answers[query] ?? [] });

describe('recallAtK', () => {
  it('averages |relevant ∩ top-k| / |relevant| over the queries, overall and by kind, and lists the misses', async () => {
    const report = await recallAtK(small, answering({ one: ['m001'], two: ['m004', 'm002'], three: ['m001', 'm002', 'm003', 'm004', 'm005', 'm007'] }), 5);
    expect(report.byKind).toEqual({ keyword: 1, mixed: 0.5, paraphrase: 0 });
    expect(report.overall).toBeCloseTo(0.5);
    expect(report.queries).toBe(3);
    expect(report.misses.map(({ query, expected, got, recall }) => ({ id: query.id, expected, got, recall }))).toEqual([
      { id: 'q002', expected: ['m002', 'm003'], got: ['m004', 'm002'], recall: 0.5 },
      { id: 'q003', expected: ['m007'], got: ['m001', 'm002', 'm003', 'm004', 'm005'], recall: 0 },
    ]);
    expect(formatRecallReport('fake', report)).toBe('fake recall@5 0.500 (keyword 1.000, mixed 0.500, paraphrase 0.000; 3 queries)');
  });

  it('counts a repeated id once, within the first k distinct ids, and takes async retrievers', async () => {
    const retriever: RecallRetriever = { retrieve: async (query) => (query === 'two' ? ['m002', 'm002', 'm002', 'm004', 'm003'] : []) };
    const report = await recallAtK(small, retriever, 2, ['mixed']);
    expect(report.misses[0]!.got).toEqual(['m002', 'm004']);
    expect(report.byKind.mixed).toBe(0.5);
    expect((await recallAtK(small, retriever, 3, ['mixed'])).byKind.mixed).toBe(1);
  });

  it('asks only the kinds it is given and reports the others as NaN', async () => {
    const asked: string[] = [];
    const report = await recallAtK(small, { retrieve: (query) => (asked.push(query), []) }, 5, ['paraphrase']);
    expect(asked).toEqual(['three']);
    expect(report.byKind.keyword).toBeNaN();
    expect(report.byKind.paraphrase).toBe(0);
    expect(formatRecallReport('none', report)).toBe('none recall@5 0.000 (paraphrase 0.000; 1 queries)');
  });

  it('refuses ids that are not corpus ids, a bad k, and kinds no query has', async () => {
    await expect(recallAtK(small, answering({ one: ['4b1c-uuid'] }))).rejects.toThrow(/q001 with "4b1c-uuid", which is no memory of the corpus/);
    await expect(recallAtK(small, answering({}), 0)).rejects.toThrow(/k must be a whole number/);
    await expect(recallAtK({ ...small, queries: small.queries.slice(0, 1) }, answering({}), 5, ['mixed'])).rejects.toThrow(/no query of the kinds/);
  });
});

function openStore(corpus: RecallCorpus) {
  const { db } = openDatabase(join(tempDir(), 'silas.db'), { create: true });
  return storeRecallCorpus(db, memorySealer(memorySeals().seals), corpus);
}

describe('storeRecallCorpus', () => {
  it('stores every memory in the active lane of one scope, as the owner, at its created_at, with both id maps', async () => {
    const corpus = { ...small, memories: [memory('m002', 'later'), { ...memory('m001', 'earlier'), created_at: '2024-05-01T10:00:00.000Z', semantic_tags: ['tag'] }] };
    const stored = openStore(corpus);
    expect(stored.repository.count('owner', 'active')).toBe(2);
    expect(stored.repository.count('owner')).toBe(2);
    const first = stored.repository.get('owner', stored.storedId.get('m001')!)!;
    expect(first).toMatchObject({ content: 'earlier', reingestion_tier: 'active', taint: 'owner', created_at: '2024-05-01T10:00:00.000Z', semantic_tags: ['tag'] });
    expect(stored.corpusId.get(first.memory_id)).toBe('m001');
    // Afterwards the repository's clock is the corpus's reference time.
    stored.repository.recordAccess('owner', [first.memory_id]);
    expect(stored.repository.get('owner', first.memory_id)!.last_accessed).toBe(corpus.referenceTime);
    expect(() => storedIdRetriever(stored, () => ['not-stored']).retrieve('x', 5)).toThrow(/memory not-stored was not stored from the corpus/);
    await expect(storedIdRetriever(stored, async () => [first.memory_id]).retrieve('x', 5)).resolves.toEqual(['m001']);
  });
});

describe('keyword recall on the corpus', () => {
  it('finds keyword queries by their words and, by construction, almost no paraphrase', async () => {
    const corpus = loadRecallCorpus();
    const stored = openStore(corpus);
    expect(stored.repository.count('owner', 'active')).toBe(corpus.memories.length);
    const report = await recallAtK(corpus, keywordRetriever(stored), 5);
    console.log(formatRecallReport('keyword (MemoryRepository.search, active lane)', report));
    expect(report.byKind.keyword).toBeGreaterThan(0.6);
    expect(report.byKind.paraphrase).toBeLessThan(0.3);
  });
});
