import { describe, expect, it } from 'vitest';
import { DlpEngine } from './engine.js';
import { dlpConfig, type PatternSpec } from './testing/dlp.js';

/*
 * A secret is not safe from DLP because it is a key or a number instead of a string (docs/dlp.md
 * "What is scanned").
 */

const AWS = 'AKIAABCDEFGHIJKLMNOP';
const PATTERNS: PatternSpec[] = [
  ['AWS Key', 'AKIA[0-9A-Z]{16}'],
  ['Card', '\\b(?:\\d{4}[- ]?){3}\\d{4}\\b'],
];
const engine = () => new DlpEngine(dlpConfig(PATTERNS, { scanRequests: true, onRequestMatch: 'redact' }));

describe('DLP scans object keys and numbers', () => {
  it('redacts a key in both directions, keeping the position and value of every property', () => {
    const value = { before: 1, [AWS]: { nested: 'kept' }, after: 'x' };
    const expected = { before: 1, '[REDACTED:AWS Key]': { nested: 'kept' }, after: 'x' };
    for (const result of [engine().scanRequest(value), engine().redactResponse(value)]) {
      expect(result.value).toEqual(expected);
      expect(Object.keys(result.value as object)).toEqual(['before', '[REDACTED:AWS Key]', 'after']);
      expect(result.events).toEqual([{ rule: 'AWS Key', count: 1 }]);
    }
    expect(value).toEqual({ before: 1, [AWS]: { nested: 'kept' }, after: 'x' });
  });

  it('keeps every value when redacted keys collide, and redacts values under a renamed key', () => {
    const other = 'AKIAZZZZZZZZZZZZZZZZ';
    const out = engine().redactResponse({ [AWS]: `v ${AWS}`, [other]: 'second', '[REDACTED:AWS Key]': 'honest' }).value;
    expect(out).toEqual({ '[REDACTED:AWS Key] #2': 'v [REDACTED:AWS Key]', '[REDACTED:AWS Key] #3': 'second', '[REDACTED:AWS Key]': 'honest' });
  });

  it('redacts a number by its JSON text, in both directions and at the root', () => {
    const value = { card: 4111111111111111, small: 42, list: [1.5, 4111111111111111] };
    const expected = { card: '[REDACTED:Card]', small: 42, list: [1.5, '[REDACTED:Card]'] };
    expect(engine().scanRequest(value).value).toEqual(expected);
    expect(engine().redactResponse(value).value).toEqual(expected);
    expect(engine().redactForAudit(4111111111111111).value).toBe('[REDACTED:Card]');
  });

  it('a request whose only secret is a key or a number is blocked under on_request_match: block', () => {
    const blocking = new DlpEngine(dlpConfig(PATTERNS, { scanRequests: true }));
    expect(blocking.scanRequest({ [AWS]: 'x' })).toMatchObject({ action: 'block', error: { data: { dlp_rule: 'AWS Key' } } });
    expect(blocking.scanRequest({ n: 4111111111111111 })).toMatchObject({ action: 'block', error: { data: { dlp_rule: 'Card' } } });
  });

  it('returns the same object when neither keys nor numbers match', () => {
    const value = { id: 7, name: 'report', nested: { count: 12 } };
    expect(engine().redactResponse(value).value).toBe(value);
  });
});
