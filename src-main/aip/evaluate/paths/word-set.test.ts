import { describe, expect, it } from 'vitest';
import { collidingWords } from './testing/word-set.js';
import { WordSet } from './word-set.js';

describe('WordSet', () => {
  it("holds each distinct word once, in the order added, with its flag, at every size", () => {
    for (const count of [3, 8, 9, 500, 1024, 1025, 5000, 40_000]) {
      const set = new WordSet();
      for (let k = 0; k < count; k += 1) {
        const w = `w${k}`;
        expect(set.flag(w)).toBe(-1);
        set.add(w, k % 2);
      }
      expect(set.list).toEqual(Array.from({ length: count }, (_, k) => `w${k}`));
      for (let k = 0; k < count; k += 1) expect(set.flag(`w${k}`)).toBe(k % 2);
      // Absent words, including ones differing in one character from held ones.
      for (const w of ['w', `w${count}`, 'W1', 'w1 ', '', 'x0']) expect(set.flag(w)).toBe(-1);
    }
  });

  it('tells apart words that differ only in non-ASCII characters or case', () => {
    const set = new WordSet();
    const words = Array.from({ length: 3000 }, (_, k) => (k % 3 === 0 ? `é${k}` : k % 3 === 1 ? `E${k}` : `e${k}`));
    for (const w of words) set.add(w, 1);
    for (const w of words) expect(set.flag(w)).toBe(1);
    expect(set.flag('e0')).toBe(-1);
    expect(set.flag('é1')).toBe(-1);
  });
});

describe('WordSet against words made to collide', () => {
  it('words that differ only in bit 15 of a character (one slot under any FNV-style hash) are all held apart', () => {
    const set = new WordSet();
    const words = collidingWords(14);
    for (const w of words) {
      expect(set.flag(w)).toBe(-1);
      set.add(w, 1);
    }
    expect(set.list).toHaveLength(words.length);
    for (const w of words) expect(set.flag(w)).toBe(1);
  });
});
