import { describe, expect, it } from 'vitest';
import { CHARS_PER_TOKEN, HeuristicTokenCounter, codePointLength } from './token-counter.js';
import { FakeTokenCounter } from './testing/context.js';

describe('HeuristicTokenCounter (§5.13: int(len(text) / 3.5))', () => {
  const counter = new HeuristicTokenCounter();

  it.each([
    ['', 0],
    ['ok', 0],
    ['abc', 0],
    ['abcd', 1], // 4 / 3.5 = 1.14
    ['abcdefg', 2], // 7 / 3.5 = 2 exactly
    ['abcdefghijklm', 3], // 13 / 3.5 = 3.71, rounded towards zero
    ['Apply the same fix pattern to the payment module', 13], // 48 / 3.5 = 13.7
    ['x'.repeat(35), 10],
    ['x'.repeat(448_000), 128_000],
  ])('counts %j as %i tokens', (text, tokens) => {
    expect(counter.count(text)).toBe(tokens);
  });

  it('counts characters as Python does (code points), not UTF-16 units', () => {
    expect('👍'.length).toBe(2);
    expect(codePointLength('👍')).toBe(1);
    expect(counter.count('👍'.repeat(7))).toBe(2); // 7 code points, 14 UTF-16 units
    expect(counter.count('héllo wörld')).toBe(3); // 11 / 3.5
    expect(counter.count('日本語のテキストです')).toBe(2); // 10 / 3.5
  });

  it('counts an unpaired surrogate as one character', () => {
    expect(codePointLength('\ud83d')).toBe(1);
    expect(codePointLength('a\udc4db')).toBe(3);
    expect(codePointLength('\ud83d\ud83d\udc4d')).toBe(2);
  });

  it('uses the ratio the spec names', () => {
    expect(CHARS_PER_TOKEN).toBe(3.5);
  });
});

describe('FakeTokenCounter (§5.13 test double: words)', () => {
  it('counts whitespace-separated words', () => {
    const counter = new FakeTokenCounter();
    expect(counter.count('')).toBe(0);
    expect(counter.count('   ')).toBe(0);
    expect(counter.count('one')).toBe(1);
    expect(counter.count('  one two\n\tthree  ')).toBe(3);
  });
});
