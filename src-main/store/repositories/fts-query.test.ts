import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_TERMS, chooseTerms, ftsAnyWordQuery } from './fts-query.js';

/** The only shape the builder may produce: quoted words joined by OR. */
const SHAPE = /^"[^"]+"(?: OR "[^"]+")*$/u;

describe('ftsAnyWordQuery', () => {
  it('quotes each distinct word, case-folded, and joins them with OR', () => {
    expect(ftsAnyWordQuery('Auth module, auth MODULE!')).toBe('"auth" OR "module"');
    expect(ftsAnyWordQuery('snake_case and kebab-case stay whole')).toBe('"snake_case" OR "and" OR "kebab-case" OR "stay" OR "whole"');
    expect(ftsAnyWordQuery('café 東京 42')).toBe('"café" OR "東京" OR "42"');
  });

  it('turns operators into words and drops the characters that are syntax', () => {
    expect(ftsAnyWordQuery('NEAR(a b, 3)')).toBe('"near" OR "a" OR "b" OR "3"');
    expect(ftsAnyWordQuery('content:secret* ^start "quoted')).toBe('"content" OR "secret" OR "start" OR "quoted"');
    expect(ftsAnyWordQuery('{content tags}: x + y')).toBe('"content" OR "tags" OR "x" OR "y"');
  });

  it('has no query for text without a letter or digit', () => {
    for (const text of ['', '  ', '*', '"', '()', '---', '__', ':^+{}']) expect(ftsAnyWordQuery(text), text).toBeNull();
  });

  it('stops at MAX_QUERY_TERMS words and skips blobs longer than a word', () => {
    const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    expect(ftsAnyWordQuery(many)!.split(' OR ')).toHaveLength(MAX_QUERY_TERMS);
    expect(ftsAnyWordQuery(`${'A'.repeat(201)} real`)).toBe('"real"');
  });

  it('produces only quoted words that FTS5 accepts, for any mix of syntax characters (seeded fuzz)', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE t USING fts5(content, tags, tokenize = 'porter unicode61 tokenchars ''_-''')");
    db.prepare('INSERT INTO t (content, tags) VALUES (?, ?)').run('near the secret river', 'topic');
    const search = db.prepare('SELECT rowid FROM t WHERE t MATCH ?');
    const alphabet = ['"', '*', '(', ')', ':', '^', '+', '-', '_', '{', '}', ' ', 'NEAR', 'AND', 'OR', 'NOT', 'content', 'tags', 'se', 'x', '\u0000', '\n', 'é', '😀', "'", ';', ','];
    let seed = 0x5eed;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let run = 0; run < 3000; run += 1) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const query = ftsAnyWordQuery(text);
      if (query === null) continue;
      expect(query, text).toMatch(SHAPE);
      expect(() => search.all(query), text).not.toThrow();
    }
    db.close();
  });
});

describe('chooseTerms', () => {
  const terms = (...pairs: [string, number][]) => pairs.map(([word, df]) => ({ word, df }));

  it('leaves out words no document holds, and has no plan when none is left', () => {
    expect(chooseTerms(terms(['ghost', 0], ['auth', 3]), 100, 2000)).toEqual({ ranked: ['auth'], recent: null });
    expect(chooseTerms(terms(['ghost', 0]), 100, 2000)).toBeNull();
    expect(chooseTerms([], 100, 2000)).toBeNull();
  });

  it('ranks no word in half the documents or more, unless the rarest, and names every word for the newest matches', () => {
    expect(chooseTerms(terms(['the', 95], ['we', 60], ['zebra', 2], ['half', 50]), 100, 2000)).toEqual({ ranked: ['zebra'], recent: ['zebra', 'half', 'we', 'the'] });
    expect(chooseTerms(terms(['the', 95], ['we', 60]), 100, 2000)).toEqual({ ranked: ['we'], recent: ['we', 'the'] });
    expect(chooseTerms(terms(['auth', 3]), 3, 2000)).toEqual({ ranked: ['auth'], recent: null });
  });

  it('ranks words rarest first while their documents fit the budget', () => {
    expect(chooseTerms(terms(['c', 900], ['a', 10], ['b', 500], ['d', 700]), 100_000, 2000)).toEqual({ ranked: ['a', 'b', 'd'], recent: ['a', 'b', 'd', 'c'] });
    expect(chooseTerms(terms(['c', 900], ['a', 10], ['b', 500], ['e', 100]), 100_000, 2000)).toEqual({ ranked: ['a', 'e', 'b', 'c'], recent: null });
  });

  it('ranks nothing when even the rarest word is over the budget', () => {
    expect(chooseTerms(terms(['commoner', 40_000], ['common', 30_000]), 100_000, 2000)).toEqual({ ranked: [], recent: ['common', 'commoner'] });
  });
});
