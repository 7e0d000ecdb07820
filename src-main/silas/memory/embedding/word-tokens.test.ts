import { describe, expect, it } from 'vitest';
import { queryWords } from '../../../store/repositories/fts-query.js';
import { fallbackForms, wordsOf } from './word-tokens.js';

describe('the words the local embedder looks up', () => {
  it('are the keyword search words, lowercased, with every repeat', () => {
    const text = 'Tabs, TABS and spaces: well-known memory_search (now) — 42 -- __ x '.repeat(2);
    const words = [...wordsOf(text)];
    expect(words.slice(0, 10)).toEqual(['tabs', 'tabs', 'and', 'spaces', 'well-known', 'memory_search', 'now', '42', 'x', 'tabs']);
    expect(new Set(words)).toEqual(new Set(queryWords(text)));
    // Without diacritics, as unicode61 indexes them and as the table's vocabulary is written.
    expect([...wordsOf('Café NAÏVE Zürich straße')]).toEqual(['cafe', 'naive', 'zurich', 'straße']);
    expect([...wordsOf(`short ${'b'.repeat(201)} word`)]).toEqual(['short', 'word']);
  });

  it('fall back to a base form, or to the parts of a compound, only when asked', () => {
    const known = new Set(['party', 'box', 'deploy', 'indent', 'cache', 'memory', 'search', 'ready']);
    const has = (word: string) => known.has(word);
    expect(fallbackForms('parties', has)).toEqual(['party']);
    expect(fallbackForms('boxes', has)).toEqual(['box']);
    expect(fallbackForms('deployed', has)).toEqual(['deploy']);
    expect(fallbackForms('indenting', has)).toEqual(['indent']);
    expect(fallbackForms('caching', has)).toEqual(['cache']);
    expect(fallbackForms('memory_searches', has)).toEqual(['memory', 'search']);
    expect(fallbackForms('already-known', has)).toEqual([]);
    // A stem must keep three letters: "bed" is not "b" + "ed".
    expect(fallbackForms('bed', (word) => word === 'b')).toEqual([]);
  });
});
