import { describe, expect, it } from 'vitest';
import { DlpEngine } from './engine.js';
import { COMMON_PATTERNS, dlpConfig } from './testing/dlp.js';

// Secrets of this test's own making (the shapes of real ones, none of them real).
const AWS = 'AKIAZQ3TRV7XW2LPMN4K';
const GH = 'ghp_Q7v2LmN8xR4tY6wK1pZ3sD5fH9jB0cX2aE4g';
const STRIPE = 'sk_live_4fT9qLm2Xw8ZrB6nV1yK3pJ7';
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const hex = (s: string): string => Buffer.from(s).toString('hex');
const pct = (s: string): string => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
const fullwidth = (s: string): string => [...s].map((c) => (c >= '!' && c <= '~' ? String.fromCodePoint(c.charCodeAt(0) + 0xfee0) : c)).join('');

const engine = new DlpEngine(dlpConfig(COMMON_PATTERNS, { scanRequests: true }));
const off = new DlpEngine(dlpConfig(COMMON_PATTERNS, { scanRequests: true, normalize: false }));
const scan = (text: string): string => engine.scanText(text, 'response').output;

describe('x-silas-normalize: disguised secrets', () => {
  it('sees through zero-width characters inside an AWS key id, redacting the span as written', () => {
    const text = `deploy with ${AWS.slice(0, 4)}\u200B${AWS.slice(4, 10)}\u2060${AWS.slice(10)} today`;
    expect(scan(text)).toBe('deploy with [REDACTED:AWS Key] today');
    expect(off.scanText(text, 'response').output).toBe(text);
  });

  it('URL-encoded, once and twice', () => {
    expect(scan(`GET /x?k=%41${AWS.slice(1)}&y=1`)).toBe('GET /x?k=[REDACTED:AWS Key]&y=1');
    expect(scan(`GET /x?k=%2541${AWS.slice(1)}&y=1`)).toBe('GET /x?k=[REDACTED:AWS Key]&y=1');
    expect(scan(`k=${pct(pct(GH))}`)).toBe('k=[REDACTED:GitHub Token]');
  });

  it('base64 of KEY=sk_live… and hex of a GitHub token (detect_encoding off)', () => {
    expect(scan(`env ${b64(`KEY=${STRIPE}`)} loaded`)).toBe('env [REDACTED:Stripe Key] loaded');
    expect(scan(`blob=${hex(GH)};`)).toBe('blob=[REDACTED:GitHub Token];');
  });

  it('fullwidth letters and Cyrillic look-alikes', () => {
    expect(scan(`key: ${fullwidth(AWS)}.`)).toBe('key: [REDACTED:AWS Key].');
    expect(scan(`token ${GH.replace('p', '\u0440')} end`)).toBe('token [REDACTED:GitHub Token] end');
  });

  it('redacts the same in a JSON response and in what goes to the audit log', () => {
    const result = { content: [{ type: 'text', text: `a ${AWS.slice(0, 8)}\u200D${AWS.slice(8)} b` }] };
    expect(engine.redactResponse(result).value).toEqual({ content: [{ type: 'text', text: 'a [REDACTED:AWS Key] b' }] });
    expect(engine.redactForAudit({ note: `%41${AWS.slice(1)}` }).value).toEqual({ note: '[REDACTED:AWS Key]' });
  });

  it('a disguised match in a request follows on_request_match', () => {
    const result = engine.scanRequest({ query: `id ${fullwidth(AWS)}` });
    expect(result.action).toBe('block');
    expect(result.error?.data.dlp_rule).toBe('AWS Key');
  });
});

describe('x-silas-normalize: secrets split across fields', () => {
  it('joins the string values of a message: each part is redacted in a response', () => {
    const value = { region: 'eu-west-1', access_key: AWS.slice(0, 12), key_suffix: AWS.slice(12) };
    expect(engine.redactResponse({ structuredContent: value }).value).toEqual({ structuredContent: { region: 'eu-west-1', access_key: '[REDACTED:AWS Key]', key_suffix: '[REDACTED:AWS Key]' } });
    const adjacent = engine.redactResponse({ a: AWS.slice(0, 12), b: AWS.slice(12) });
    expect(adjacent.value).toEqual({ a: '[REDACTED:AWS Key]', b: '[REDACTED:AWS Key]' });
    expect(adjacent.events).toEqual([{ rule: 'AWS Key', count: 2 }]);
    expect(off.redactResponse({ a: AWS.slice(0, 12), b: AWS.slice(12) }).redacted).toBe(false);
  });

  it('is a match in a request', () => {
    const result = engine.scanRequest({ user: 'ops', token_a: GH.slice(0, 20), token_b: GH.slice(20) });
    expect(result.action).toBe('block');
    expect(result.error?.data.dlp_rule).toBe('GitHub Token');
  });

  it('parts of a value: only the crossing part of each value is redacted', () => {
    const out = engine.redactResponse({ x: `prefix ${AWS.slice(0, 10)}`, y: `${AWS.slice(10)} suffix` }).value;
    expect(out).toEqual({ x: 'prefix [REDACTED:AWS Key]', y: '[REDACTED:AWS Key] suffix' });
  });

  it('does not join keys, numbers, or values a long value separates', () => {
    expect(engine.redactResponse({ [AWS.slice(0, 12)]: AWS.slice(12) }).value).toEqual({ [AWS.slice(0, 12)]: AWS.slice(12) });
    const long = 'x'.repeat(5000);
    expect(engine.redactResponse({ a: AWS.slice(0, 12), gap: long, b: AWS.slice(12) }).redacted).toBe(false);
  });

  it('a greedy match running on into the next value is not a split secret', () => {
    const value = { email: 'ops.lead@example.org', status: 'active', note: 'reachable' };
    expect(engine.redactResponse(value).value).toEqual({ email: '[REDACTED:Email]', status: 'active', note: 'reachable' });
  });
});

describe('x-silas-normalize: nothing extra for benign text', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(Array.from({ length: 6000 }, (_, i) => (i * 131 + (i >> 3)) & 0xff))]);
  const benign = [
    `<img src="data:image/png;base64,${png.subarray(0, 300).toString('base64')}">`,
    'request 0b9f6c1e-4d2a-4f7b-9a3e-5c8d7e6f1a2b finished',
    'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'Прошу проверить отчёт до пятницы. Merci beaucoup, à bientôt — 東京で会いましょう。',
    png.toString('base64'),
    'progress 100% done, 50%-off sale, path /a%20b',
  ];
  it.each(benign.map((text, i) => [i, text]))('benign #%i passes untouched', (_i, text) => {
    const result = engine.scanText(text, 'response');
    expect(result.redacted).toBe(false);
    expect(result.output).toBe(text);
  });

  it('a structured response of ordinary rows is untouched', () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: String(i), name: `item-${i}`, digest: hex(`row ${i}`).padEnd(64, '0'), amount: '1234', when: '2026-01-02' }));
    expect(engine.redactResponse({ structuredContent: { rows } }).redacted).toBe(false);
  });
});
