import { describe, expect, it } from 'vitest';
import { DlpEngine } from './engine.js';
import type { PatternView } from './patterns.js';
import { COMMON_PATTERNS, dlpConfig, type PatternSpec } from './testing/dlp.js';

/*
 * Hostile inputs and patterns. No timing assertions (DESIGN §6): these tests only have to finish
 * (inside vitest's timeout) and give the right answer; exponential backtracking or a recursive
 * walk would not.
 */

const KEY = 'AKIAIOSFODNN7EXAMPLE';
const AWS: PatternSpec = ['AWS Key', 'AKIA[0-9A-Z]{16}'];
const big = { maxScanSize: 64 * 1024 * 1024 };

describe('ReDoS-shaped patterns run in linear time (RE2, §10.2)', () => {
  const text = `${'a'.repeat(100_000)}!`;

  it('(a+)+$ and friends over 100 KB of a', () => {
    const engine = new DlpEngine(
      dlpConfig(
        [
          ['Nested', '(a+)+$'],
          ['Alt', '(a|aa)+b'],
          ['Star', '(.*a){25}x'],
          ['Class', '([a-z]+)*\\d'],
        ],
        big,
      ),
    );
    expect(engine.scanText(text, 'response')).toMatchObject({ output: text, redacted: false });
    const strings = Array.from({ length: 10 }, () => text);
    expect(engine.redactResponse({ structuredContent: strings }).redacted).toBe(false);
  });

  it('a pattern that matches the whole 100 KB run is redacted as one marker', () => {
    const engine = new DlpEngine(dlpConfig([['Nested', '(a+)+!']], big));
    expect(engine.scanText(text, 'response')).toMatchObject({ output: '[REDACTED:Nested]', events: [{ rule: 'Nested', count: 1 }] });
  });
});

describe('deep and wide JSON', () => {
  function nest(depth: number, leaf: unknown, array: boolean): unknown {
    let value = leaf;
    for (let i = 0; i < depth; i += 1) value = array ? [value] : { k: value };
    return value;
  }

  function leafOf(value: unknown, depth: number, array: boolean): unknown {
    let current = value;
    for (let i = 0; i < depth; i += 1) current = array ? (current as unknown[])[0] : (current as { k: unknown }).k;
    return current;
  }

  const engine = new DlpEngine(dlpConfig([AWS], big));

  for (const depth of [10_000, 100_000]) {
    for (const array of [false, true]) {
      it(`${depth} levels of ${array ? 'arrays' : 'objects'} without a stack overflow`, () => {
        const value = nest(depth, `key ${KEY}`, array);
        const out = engine.redactResponse(value);
        expect(out.events).toEqual([{ rule: 'AWS Key', count: 1 }]);
        expect(leafOf(out.value, depth, array)).toBe('key [REDACTED:AWS Key]');
        expect(leafOf(value, depth, array)).toBe(`key ${KEY}`);
        expect(engine.redactResponse(nest(depth, 'clean', array)).redacted).toBe(false);
      });
    }
  }

  it('a 1,000,000-element array with one secret copies only that array', () => {
    const list: unknown[] = Array.from({ length: 1_000_000 }, (_, i) => (i % 3 === 0 ? i : { i }));
    list[777_777] = `x ${KEY}`;
    const result = { structuredContent: { list, other: { a: 1 } } };
    const out = engine.redactResponse(result).value as typeof result;
    expect(out.structuredContent.other).toBe(result.structuredContent.other);
    expect(out.structuredContent.list).not.toBe(list);
    expect(out.structuredContent.list.length).toBe(1_000_000);
    expect(out.structuredContent.list[777_777]).toBe('x [REDACTED:AWS Key]');
    expect(out.structuredContent.list[1]).toBe(list[1]);
  });

  it('200,000 short strings with secrets at the edges', () => {
    const strings = Array.from({ length: 200_000 }, (_, i) => `row ${i}`);
    strings[0] = KEY;
    strings[199_999] = KEY;
    strings[100_000] = `${KEY}`;
    const out = engine.redactResponse({ strings }).value as { strings: string[] };
    expect(out.strings.filter((s) => s === '[REDACTED:AWS Key]').length).toBe(3);
    expect(out.strings[1]).toBe('row 1');
  });

  it('an object with 100,000 keys', () => {
    const wide: Record<string, string> = {};
    for (let i = 0; i < 100_000; i += 1) wide[`k${i}`] = i === 50_000 ? KEY : 'v';
    const out = engine.redactResponse({ structuredContent: wide }).value as { structuredContent: Record<string, string> };
    expect(out.structuredContent.k50000).toBe('[REDACTED:AWS Key]');
    expect(Object.keys(out.structuredContent).length).toBe(100_000);
    expect(Object.keys(out.structuredContent)[50_000]).toBe('k50000');
  });
});

describe('long strings and many matches', () => {
  it('an 8 MB string with secrets at the start, middle and end', () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(150_000); // ~4 MB
    const text = `${KEY} ${filler}${KEY} ${filler}${KEY}`;
    const engine = new DlpEngine(dlpConfig(COMMON_PATTERNS, { maxScanSize: 16 * 1024 * 1024 }));
    const result = engine.scanText(text, 'response');
    expect(result.events).toEqual([{ rule: 'AWS Key', count: 3 }]);
    expect(result.output).toBe(`[REDACTED:AWS Key] ${filler}[REDACTED:AWS Key] ${filler}[REDACTED:AWS Key]`);
  });

  it('50,000 matches in one string (linear match enumeration)', () => {
    const text = Array.from({ length: 50_000 }, (_, i) => `u${i}@example.com`).join(' ');
    const engine = new DlpEngine(dlpConfig(COMMON_PATTERNS, big));
    const result = engine.scanText(text, 'response');
    expect(result.events).toEqual([{ rule: 'Email', count: 50_000 }]);
    expect(result.output).toBe(Array.from({ length: 50_000 }, () => '[REDACTED:Email]').join(' '));
  });

  it('empty-matching patterns cannot blow up the output', () => {
    const engine = new DlpEngine(dlpConfig([['Empty', '\\b'], ['Opt', 'z?']], big));
    const text = 'word '.repeat(100_000);
    expect(engine.scanText(text, 'response').output).toBe(text);
  });
});

describe('fail towards scanning', () => {
  it('if the RE2.Set fails at run time, every pattern is run instead', () => {
    const engine = new DlpEngine(dlpConfig([['Email', '[a-z]+@[a-z]+\\.io'], AWS]));
    const view = (engine as unknown as { response: { view: PatternView } }).response.view;
    const failing = {
      match(): number[] {
        throw new Error('RE2.Set: DFA out of memory');
      },
      test(): boolean {
        throw new Error('RE2.Set: DFA out of memory');
      },
    };
    Object.defineProperty(view, 'set', { value: failing });
    const strings = Array.from({ length: 100 }, (_, i) => (i === 42 ? `k ${KEY}` : i === 7 ? 'a@b.io' : 'clean'));
    const out = engine.redactResponse({ strings }).value as { strings: string[] };
    expect(out.strings[42]).toBe('k [REDACTED:AWS Key]');
    expect(out.strings[7]).toBe('[REDACTED:Email]');
    expect(engine.scanText(`x ${KEY}`, 'response').output).toBe('x [REDACTED:AWS Key]');
  });

  it('patterns the set cannot take still run (always-run path)', () => {
    const engine = new DlpEngine(dlpConfig([['Start', '\\Asecret'], ['Flags', '(?-m)^token'], AWS]));
    const out = engine.redactResponse({ a: ['secret x', 'x secret', 'token y', 'y\ntoken', KEY] }).value;
    expect(out).toEqual({ a: ['[REDACTED:Start] x', 'x secret', '[REDACTED:Flags] y', 'y\ntoken', '[REDACTED:AWS Key]'] });
  });
});
