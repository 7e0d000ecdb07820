import { describe, expect, it, vi } from 'vitest';
import { DlpEngine } from './engine.js';
import { utf16PrefixForBytes } from './scan.js';
import { dlpConfig, type PatternSpec } from './testing/dlp.js';

const AWS: PatternSpec = ['AWS Key', 'AKIA[0-9A-Z]{16}'];
const WORD: PatternSpec = ['Word', '[a-zé😀]+'];
const KEY = 'AKIAIOSFODNN7EXAMPLE';
const WARNING = (limit: number, direction = 'response'): string =>
  `DLP: ${direction} content exceeds max_scan_size (${limit} bytes); only the first ${limit} bytes were scanned`;

function engine(patterns: PatternSpec[], maxScanSize: number, onWarning?: (m: string) => void): DlpEngine {
  return new DlpEngine(dlpConfig(patterns, { maxScanSize, scanRequests: true, onRequestMatch: 'redact' }), { onWarning });
}

describe('max_scan_size', () => {
  it('scans content of exactly the limit, and warns when one byte is over', () => {
    const text = `xxxxxxxxxx${KEY}`; // 30 bytes
    expect(engine([AWS], 30).scanText(text, 'response')).toEqual({ output: 'xxxxxxxxxx[REDACTED:AWS Key]', redacted: true, events: [{ rule: 'AWS Key', count: 1 }], warnings: [] });
    const onWarning = vi.fn();
    const over = engine([AWS], 29, onWarning).scanText(text, 'response');
    expect(over).toEqual({ output: text, redacted: false, events: [], warnings: [WARNING(29)] });
    expect(onWarning).toHaveBeenCalledTimes(1);
    expect(onWarning).toHaveBeenCalledWith(WARNING(29));
  });

  it('redacts inside the scanned prefix and passes the rest through unscanned', () => {
    const text = `${KEY} and later ${KEY}`;
    const result = engine([AWS], 30).scanText(text, 'response');
    expect(result.output).toBe(`[REDACTED:AWS Key] and later ${KEY}`);
    expect(result.warnings).toEqual([WARNING(30)]);
  });

  it('never splits a 2-byte UTF-8 character', () => {
    const text = 'abécd'; // a b é(2) c d = 6 bytes
    expect(engine([WORD], 3).scanText(text, 'response').output).toBe('[REDACTED:Word]écd');
    expect(engine([WORD], 4).scanText(text, 'response').output).toBe('[REDACTED:Word]cd');
  });

  it('never splits a surrogate pair (4-byte UTF-8)', () => {
    const text = 'a😀b'; // 1 + 4 + 1 bytes
    for (const limit of [1, 2, 3, 4]) expect(engine([WORD], limit).scanText(text, 'response').output).toBe('[REDACTED:Word]😀b');
    expect(engine([WORD], 5).scanText(text, 'response').output).toBe('[REDACTED:Word]b');
    expect(engine([WORD], 6).scanText(text, 'response')).toMatchObject({ output: '[REDACTED:Word]', warnings: [] });
  });

  it('counts bytes across the strings of a response in document order, with one warning', () => {
    const onWarning = vi.fn();
    const first = `${KEY}${'.'.repeat(80)}`; // 100 bytes
    const result = { content: [{ type: 'text', text: first }, { type: 'text', text: `${KEY}.` }, { type: 'text', text: KEY }] };
    const out = engine([AWS], 110, onWarning).redactResponse(result);
    expect(out.value).toEqual({ content: [{ type: 'text', text: `[REDACTED:AWS Key]${'.'.repeat(80)}` }, result.content[1], result.content[2]] });
    expect(out.warnings).toEqual([WARNING(110)]);
    expect(onWarning).toHaveBeenCalledTimes(1);
  });

  it('exactly used up: warns only if more content follows', () => {
    // Keys are content too: "a", "b" and "c" use 3 of the 23 bytes.
    const exact = engine([AWS], 23).redactResponse({ a: KEY, b: '', c: true });
    expect(exact.warnings).toEqual([]);
    expect(exact.value).toEqual({ a: '[REDACTED:AWS Key]', b: '', c: true });
    const more = engine([AWS], 23).redactResponse({ a: KEY, b: 'xy' });
    expect(more.warnings).toEqual([WARNING(23)]);
    expect(more.value).toEqual({ a: '[REDACTED:AWS Key]', b: 'xy' });
  });

  it('counts keys and the JSON text of numbers, not booleans, null or punctuation', () => {
    const result = { ['k'.repeat(500)]: KEY, n: 123456789, list: [true, null] };
    expect(engine([AWS], 20).redactResponse(result)).toMatchObject({ value: result, warnings: [WARNING(20)] });
    expect(engine([AWS], 1 + 9 + 4 + 1 + 20).redactResponse({ n: 123456789, list: [true, null], k: KEY })).toMatchObject({ value: { n: 123456789, list: [true, null], k: '[REDACTED:AWS Key]' }, warnings: [] });
  });

  it('unscanned base64 payloads (no detect_encoding) do not use up the budget', () => {
    const result = { content: [{ type: 'image', data: 'A'.repeat(100_000), mimeType: 'image/png' }, { type: 'text', text: KEY }] };
    const out = engine([AWS], 1000).redactResponse(result);
    expect(out.warnings).toEqual([]);
    expect((out.value as typeof result).content[1]).toEqual({ type: 'text', text: '[REDACTED:AWS Key]' });
  });

  it('applies to requests too', () => {
    const result = engine([AWS], 10).scanRequest({ a: KEY });
    expect(result.action).toBe('forward');
    expect(result.warnings).toEqual([WARNING(10, 'request')]);
  });

  it('0 bytes scans nothing', () => {
    expect(engine([AWS], 0).scanText(KEY, 'response')).toEqual({ output: KEY, redacted: false, events: [], warnings: [WARNING(0)] });
    expect(engine([AWS], 0).scanText('', 'response').warnings).toEqual([]);
  });

  it('handles a straddling string inside a large batch of small strings', () => {
    const strings = Array.from({ length: 5000 }, (_, i) => `${i % 10 === 0 ? KEY : 'x'.repeat(20)}`); // 20 bytes each
    const out = engine([AWS], 20 * 2500 + 7).redactResponse({ strings });
    const redacted = (out.value as { strings: string[] }).strings;
    expect(redacted.filter((s) => s.startsWith('[REDACTED')).length).toBe(250);
    expect(redacted[2490]).toBe('[REDACTED:AWS Key]');
    expect(redacted[2500]).toBe(KEY);
    expect(out.warnings).toEqual([WARNING(20 * 2500 + 7)]);
  });
});

describe('utf16PrefixForBytes', () => {
  it('agrees with Buffer.byteLength, counting lone surrogates as 3 bytes', () => {
    const text = 'aé€😀\ud800z\udc00';
    for (let limit = 0; limit <= Buffer.byteLength(text); limit += 1) {
      const cut = utf16PrefixForBytes(text, limit);
      const prefix = text.slice(0, cut);
      expect(Buffer.byteLength(prefix)).toBeLessThanOrEqual(limit);
      expect(cut === text.length || Buffer.byteLength(text.slice(0, cut + (text.codePointAt(cut)! > 0xffff ? 2 : 1))) > limit).toBe(true);
      const last = prefix.charCodeAt(prefix.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff && text.charCodeAt(cut) >= 0xdc00 && text.charCodeAt(cut) <= 0xdfff).toBe(false);
    }
  });
});
