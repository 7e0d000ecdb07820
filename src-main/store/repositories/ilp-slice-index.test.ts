import { afterEach, describe, expect, it } from 'vitest';
import { IlpSliceIndex, type IndexedSlice } from './ilp-slice-index.js';

/*
 * The navigator's in-memory index (docs/ilp.md "Navigator and slices"): concepts by key and by
 * part, FTS5 over title and knowledge with untrusted queries, replacement by id.
 */

const slice = (id: string, fields: Partial<IndexedSlice> = {}): IndexedSlice => ({
  id,
  domain: 'systems',
  title: `Title of ${id}`,
  concepts: [],
  tags: [],
  knowledge: 'Plain knowledge.',
  file: `/slices/${id}.slice.yaml`,
  ...fields,
});
const concepts = (...keys: string[]) => keys.map((key) => ({ written: key.toUpperCase(), key }));

let index: IlpSliceIndex;
afterEach(() => index.close());

describe('IlpSliceIndex', () => {
  it('finds concepts by whole key and by part, in index order, with the concept as written', () => {
    index = new IlpSliceIndex();
    index.put(slice('a', { concepts: concepts('negative_feedback', 'homeostasis') }));
    index.put(slice('b', { concepts: concepts('feedback') }));
    const { whole, partial } = index.conceptMatches(['feedback'], 'feed', 100);
    expect(whole.map((m) => [m.id, m.concept])).toEqual([['b', 'FEEDBACK']]);
    // A key already asked for whole is not read again as a part.
    expect(partial.map((m) => [m.id, m.concept, m.position])).toEqual([['a', 'NEGATIVE_FEEDBACK', 0]]);
    expect(index.conceptMatches([], 'feed', 100).partial.map((m) => m.id)).toEqual(['a', 'b']);
    expect(index.conceptMatches([], 'feed', 1).partial.map((m) => m.id)).toEqual(['a']);
    // A part needs three characters: a shorter one matches nothing rather than everything.
    expect(index.conceptMatches([], 'fe', 100).partial).toEqual([]);
  });

  it('replaces a slice by id and forgets every trace of the old one', () => {
    index = new IlpSliceIndex();
    index.put(slice('a', { concepts: concepts('budgeting'), knowledge: 'about reserves' }));
    index.put(slice('a', { domain: 'finance', concepts: concepts('saving'), knowledge: 'about saving' }));
    expect(index.ids()).toEqual(['a']);
    expect(index.conceptMatches(['budgeting'], 'budget', 10)).toEqual({ whole: [], partial: [] });
    expect(index.conceptMatches([], 'sav', 10).partial.map((m) => m.concept)).toEqual(['SAVING']);
    expect(index.textMatches('reserves', 10)).toEqual([]);
    expect(index.byDomain('finance')).toEqual(['a']);
    expect(index.counts()).toEqual({ slices: 1, concepts: 1, domains: 1 });
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.counts()).toEqual({ slices: 0, concepts: 0, domains: 0 });
  });

  it('ranks text matches by bm25 with the title first, and a query contributes no FTS5 syntax', () => {
    index = new IlpSliceIndex();
    index.put(slice('knowledge-only', { knowledge: 'thermostat control of a room' }));
    index.put(slice('in-title', { title: 'Thermostat', knowledge: 'control' }));
    index.put(slice('other', { knowledge: 'nothing relevant' }));
    expect(index.textMatches('thermostat', 10)).toEqual(['in-title', 'knowledge-only']);
    for (const hostile of ['"', 'title:thermostat', 'thermo*', 'NEAR(a b)', ') OR (', 'a AND NOT b', '^x', '']) {
      expect(() => index.textMatches(hostile, 10), hostile).not.toThrow();
    }
    // A column filter is two words, and a prefix is the word itself.
    expect(index.textMatches('knowledge:thermostat', 10)).toEqual(index.textMatches('knowledge thermostat', 10));
    expect(index.textMatches('thermo*', 10)).toEqual([]);
  });

  it('entry() finds a slice by its id only', () => {
    index = new IlpSliceIndex();
    index.put(slice('test-yml', { file: '/slices/test.slice.yml' }));
    expect(index.entry('test-yml')).toEqual({ id: 'test-yml', domain: 'systems', title: 'Title of test-yml', file: '/slices/test.slice.yml' });
    expect(index.entry('test')).toBeNull();
  });
});
