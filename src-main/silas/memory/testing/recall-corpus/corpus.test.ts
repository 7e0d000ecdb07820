import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentWords, sharedContentWords } from './content-words.js';
import { QUERY_KINDS, loadRecallCorpus, type RecallMemory } from './corpus.js';
import { distractorsFileText, generateDistractors } from './generate-distractors.js';

// The fixture the recall figures of spec 002 §6.1–§6.3 are measured on must be what README.md
// says it is: large enough, labelled consistently, and with paraphrases that truly share no word.

const corpus = loadRecallCorpus();
const byId = new Map(corpus.memories.map((memory) => [memory.id, memory]));
/** What FTS5 indexes of a memory (spec 002 §6.1): its content and its tags. */
const indexedText = (memory: RecallMemory) => [memory.content, ...(memory.semantic_tags ?? [])].join(' ');

describe('the recall corpus', () => {
  it('has at least 520 memories and 120 queries, a third of them paraphrases', () => {
    expect(corpus.memories.length).toBeGreaterThanOrEqual(520);
    expect(corpus.queries.length).toBeGreaterThanOrEqual(120);
    const paraphrases = corpus.queries.filter((query) => query.kind === 'paraphrase').length;
    expect(paraphrases).toBeGreaterThanOrEqual(40);
    expect(paraphrases * 3).toBeGreaterThanOrEqual(corpus.queries.length);
    for (const kind of QUERY_KINDS) expect(corpus.queries.some((query) => query.kind === kind), kind).toBe(true);
  });

  it('has unique ids, and every relevant id names a memory', () => {
    expect(new Set(corpus.memories.map((memory) => memory.id)).size).toBe(corpus.memories.length);
    expect(new Set(corpus.queries.map((query) => query.id)).size).toBe(corpus.queries.length);
    const problems = corpus.queries.flatMap((query) => [
      ...query.relevant.filter((id) => !byId.has(id)).map((id) => `${query.id} names ${id}, which is no memory of the corpus`),
      ...(new Set(query.relevant).size === query.relevant.length ? [] : [`${query.id} names a relevant memory twice`]),
    ]);
    expect(problems).toEqual([]);
  });

  it('has no two memories with the same content and no two queries with the same text', () => {
    const duplicates = (texts: string[]) => texts.filter((text, index) => texts.indexOf(text) !== index);
    expect(duplicates(corpus.memories.map((memory) => memory.content.toLowerCase()))).toEqual([]);
    expect(duplicates(corpus.queries.map((query) => query.text.toLowerCase()))).toEqual([]);
  });

  it('has every memory created before the reference time, and labels only hand-written targets', () => {
    expect(corpus.memories.filter((memory) => memory.created_at >= corpus.referenceTime).map((memory) => memory.id)).toEqual([]);
    const generated = new Set(generateDistractors().map((memory) => memory.id));
    expect(corpus.queries.filter((query) => query.relevant.some((id) => generated.has(id))).map((query) => query.id)).toEqual([]);
  });

  it('has paraphrase queries that share no content word, stem or long prefix with any of their relevant memories', () => {
    const shared = corpus.queries
      .filter((query) => query.kind === 'paraphrase')
      .flatMap((query) =>
        query.relevant.flatMap((id) =>
          sharedContentWords(query.text, indexedText(byId.get(id)!)).map(
            (word) => `${query.id} "${query.text}" and ${id}: "${word.query}" / "${word.memory}" (${word.why})`,
          ),
        ),
      );
    expect(shared).toEqual([]);
  });

  it('has keyword and mixed queries that do share a word with a relevant memory (otherwise they are paraphrases)', () => {
    const wordless = corpus.queries
      .filter((query) => query.kind !== 'paraphrase')
      .filter((query) => query.relevant.every((id) => sharedContentWords(query.text, indexedText(byId.get(id)!)).length === 0))
      .map((query) => `${query.id} (${query.kind}) "${query.text}"`);
    expect(wordless).toEqual([]);
  });

  it('has paraphrase queries with content words of their own (a query of stopwords would be trivially wordless)', () => {
    const empty = corpus.queries.filter((query) => query.kind === 'paraphrase' && contentWords(query.text).length < 2).map((query) => query.id);
    expect(empty).toEqual([]);
  });

  it('holds exactly the distractors generate-distractors.ts writes', () => {
    const committed = readFileSync(new URL('./distractors.json', import.meta.url), 'utf8');
    expect(committed, 'distractors.json is stale: run npx tsx src-main/silas/memory/testing/recall-corpus/generate-distractors.ts').toBe(
      distractorsFileText(generateDistractors()),
    );
  });
});
