import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadRecallCorpus } from './corpus.js';
import { porterStem } from './porter-stemmer.js';

// The paraphrase check of the recall corpus stands for what keyword recall cannot match, so the
// stemmer must be the one FTS5 indexes with (spec 002 §6.1, tokenize 'porter unicode61').

/** Porter's own examples ("An algorithm for suffix stripping", 1980, and his sample vocabulary). */
const PORTER_EXAMPLES: Record<string, string> = {
  caresses: 'caress', ponies: 'poni', ties: 'ti', caress: 'caress', cats: 'cat', feed: 'feed', agreed: 'agre', plastered: 'plaster',
  bled: 'bled', motoring: 'motor', sing: 'sing', conflated: 'conflat', troubled: 'troubl', sized: 'size', hopping: 'hop', tanned: 'tan',
  falling: 'fall', hissing: 'hiss', fizzed: 'fizz', failing: 'fail', filing: 'file', happy: 'happi', sky: 'sky', relational: 'relat',
  conditional: 'condit', rational: 'ration', valenci: 'valenc', hesitanci: 'hesit', digitizer: 'digit', radicalli: 'radic',
  differentli: 'differ', vileli: 'vile', analogousli: 'analog', vietnamization: 'vietnam', predication: 'predic', operator: 'oper',
  feudalism: 'feudal', decisiveness: 'decis', hopefulness: 'hope', callousness: 'callous', formaliti: 'formal', sensitiviti: 'sensit',
  sensibiliti: 'sensibl', triplicate: 'triplic', formative: 'form', formalize: 'formal', electriciti: 'electr', electrical: 'electr',
  hopeful: 'hope', goodness: 'good', revival: 'reviv', allowance: 'allow', inference: 'infer', airliner: 'airlin', gyroscopic: 'gyroscop',
  adjustable: 'adjust', defensible: 'defens', irritant: 'irrit', replacement: 'replac', adjustment: 'adjust', dependent: 'depend',
  adoption: 'adopt', homologou: 'homolog', communism: 'commun', activate: 'activ', angulariti: 'angular', homologous: 'homolog',
  effective: 'effect', bowdlerize: 'bowdler', probate: 'probat', rate: 'rate', cease: 'ceas', controll: 'control', roll: 'roll',
  generalization: 'gener', oscillator: 'oscil', indentation: 'indent', indent: 'indent', logic: 'logic', archaeology: 'archaeolog',
};

/** Each word as FTS5's porter tokenizer stems it, one row per word, read back through fts5vocab. */
function fts5Stems(words: readonly string[]): Map<string, string> {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE words USING fts5(word, tokenize = 'porter unicode61');
      CREATE VIRTUAL TABLE stems USING fts5vocab(words, instance);`);
    const insert = db.prepare('INSERT INTO words (rowid, word) VALUES (?, ?)');
    db.transaction(() => words.forEach((word, index) => insert.run(index + 1, word)))();
    const rows = db.prepare('SELECT doc, term FROM stems').all() as { doc: number; term: string }[];
    return new Map(rows.map((row) => [words[row.doc - 1]!, row.term]));
  } finally {
    db.close();
  }
}

describe('porterStem', () => {
  it("gives Porter's published stems", () => {
    const got = Object.fromEntries(Object.keys(PORTER_EXAMPLES).map((word) => [word, porterStem(word)]));
    expect(got).toEqual(PORTER_EXAMPLES);
  });

  it('leaves words under three letters alone, as FTS5 does', () => {
    expect(['a', 'is', 'as', 'ys', 'go'].map(porterStem)).toEqual(['a', 'is', 'as', 'ys', 'go']);
  });

  it("agrees with FTS5's porter tokenizer on every word of the recall corpus and of Porter's examples", () => {
    const corpus = loadRecallCorpus();
    const texts = [...corpus.memories.flatMap((memory) => [memory.content, ...(memory.semantic_tags ?? [])]), ...corpus.queries.map((query) => query.text)];
    const words = [...new Set([...texts.flatMap((text) => text.toLowerCase().match(/[a-z0-9]+/g) ?? []), ...Object.keys(PORTER_EXAMPLES)])];
    expect(words.length).toBeGreaterThan(2000);
    const fts5 = fts5Stems(words);
    const disagreements = words.filter((word) => fts5.get(word) !== porterStem(word)).map((word) => `${word}: FTS5 ${fts5.get(word)}, ours ${porterStem(word)}`);
    expect(disagreements).toEqual([]);
  });
});
