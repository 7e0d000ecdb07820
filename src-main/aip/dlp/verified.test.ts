import { describe, expect, it, vi } from 'vitest';
import { DlpEngine } from './engine.js';
import { dlpConfig, pattern } from './testing/dlp.js';

// The checks themselves are verify/'s; here only how the engine uses one: a match counts only
// when its check passes, on every path (plain, normalised view, joined values, decoded run).
vi.mock('./verify/index.js', () => ({
  verifyMatch: vi.fn((verifier: string, match: string) => verifier === 'luhn' && !match.includes('0000')),
}));

const card = { ...pattern('Card', '\\b\\d{16}\\b'), verify: 'luhn' as const };
const engine = new DlpEngine(dlpConfig([card], { scanRequests: true, detectEncoding: true }));
const scan = (text: string): string => engine.scanText(text, 'response').output;

describe('x-silas-verify in the engine', () => {
  it('counts a match only when its check passes', () => {
    expect(scan('pay 4111222233334444 now')).toBe('pay [REDACTED:Card] now');
    expect(scan('ref 4111000033334444 now')).toBe('ref 4111000033334444 now');
  });

  it('checks the text as read in a view, in joined values and in a decoded run', () => {
    expect(scan('pay \uFF14111222233334444')).toBe('pay [REDACTED:Card]');
    expect(engine.redactResponse({ a: '41112222', b: '33334444' }).value).toEqual({ a: '[REDACTED:Card]', b: '[REDACTED:Card]' });
    expect(engine.redactResponse({ a: '41110000', b: '33334444' }).redacted).toBe(false);
    const encoded = Buffer.from('card 4111000033334444 ok').toString('base64');
    expect(scan(encoded)).toBe(encoded);
  });
});
