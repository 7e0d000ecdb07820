import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DlpEngine } from './engine.js';
import { decodeRun, findRuns, looksLikeText } from './encoding.js';
import { COMMON_PATTERNS, dlpConfig, type PatternSpec } from './testing/dlp.js';

const KEY = 'AKIAIOSFODNN7EXAMPLE';
const GH = `ghp_${'x'.repeat(36)}`;
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const hex = (s: string): string => Buffer.from(s).toString('hex');

// detect_encoding on its own: x-silas-normalize (on by default) also decodes runs, nested, and is tested in normalized.test.ts.
const detecting = new DlpEngine(dlpConfig(COMMON_PATTERNS, { detectEncoding: true, normalize: false }));
const plain = new DlpEngine(dlpConfig(COMMON_PATTERNS, { normalize: false }));
const normalizing = new DlpEngine(dlpConfig(COMMON_PATTERNS));
const scan = (text: string) => detecting.scanText(text, 'response');

/** Deterministic pseudo-random bytes (tests must not flake). */
function randomBytes(n: number, seed = n): Buffer {
  const chunks: Buffer[] = [];
  for (let i = 0; chunks.length * 64 < n; i += 1) chunks.push(createHash('sha512').update(`${seed}:${i}`).digest());
  return Buffer.concat(chunks).subarray(0, n);
}

describe('detect_encoding: encoded secrets', () => {
  it('replaces a whole base64 run whose decoded text matches, counted under the matching rule', () => {
    const run = b64(`aws_access_key_id = ${KEY}\n`);
    const result = scan(`config: ${run} end`);
    expect(result.output).toBe('config: [REDACTED:AWS Key] end');
    expect(result.events).toEqual([{ rule: 'AWS Key', count: 1 }]);
  });

  it('hex, with or without 0x', () => {
    expect(scan(`blob ${hex(KEY)} and 0x${hex(`token ${GH}`)}.`).output).toBe('blob [REDACTED:AWS Key] and [REDACTED:GitHub Token].');
  });

  it('URL-safe base64 and padding', () => {
    const secret = `??>>${KEY}??>>`; // ?/> make + and / in standard base64
    expect(b64(secret)).toMatch(/[+/]/);
    const url = Buffer.from(secret).toString('base64url');
    expect(scan(`u=${url}`).output).toBe('u=[REDACTED:AWS Key]');
    expect(scan(`s=${b64(secret)}`).output).toBe('s=[REDACTED:AWS Key]');
    expect(scan(`p=${b64(`${KEY}x`)}`).output).toBe('p=[REDACTED:AWS Key]');
  });

  it('finds payloads glued to a path or identifier', () => {
    expect(scan(`GET /api/v1/items/${b64(`k=${KEY}`)} HTTP/1.1`).output).toBe('GET [REDACTED:AWS Key] HTTP/1.1');
    expect(scan(`secret_x${b64(`k=${KEY}`)}`).output).toBe('[REDACTED:AWS Key]');
  });

  it('labels by the first rule in policy order found in the decoded text', () => {
    const run = b64(`mail a@b.io then ${KEY}`);
    expect(scan(run).events).toEqual([{ rule: 'AWS Key', count: 1 }]);
  });

  it('plain matches next to or inside encoded runs follow the overlap rule', () => {
    // The plain AWS key is itself an alphabet run (it decodes to binary, so only the plain match counts).
    const result = scan(`${KEY} ${b64(`x ${GH}`)} a@b.io`);
    expect(result.output).toBe('[REDACTED:AWS Key] [REDACTED:GitHub Token] [REDACTED:Email]');
    expect(result.events).toEqual([
      { rule: 'AWS Key', count: 1 },
      { rule: 'GitHub Token', count: 1 },
      { rule: 'Email', count: 1 },
    ]);
  });

  it('is off by default: encoded secrets pass', () => {
    const text = `config: ${b64(KEY)}`;
    expect(plain.scanText(text, 'response').output).toBe(text);
    expect(normalizing.scanText(text, 'response').output).toBe('config: [REDACTED:AWS Key]');
  });

  it('only one level deep (documented): base64 of base64 is not unwrapped', () => {
    const text = b64(b64(`key ${KEY}`));
    expect(scan(text).output).toBe(text);
    expect(normalizing.scanText(text, 'response').output).toBe('[REDACTED:AWS Key]');
  });

  it('base64 wrapped at 76 columns: each line is its own run, decoded on its own', () => {
    const lines = b64(`${'filler text '.repeat(10)}${KEY}${' more'.repeat(20)}`).match(/.{1,76}/g)!;
    const result = scan(lines.join('\n'));
    // 76 characters = 57 bytes a line: the key's bytes (120–139) fall inside the third line
    // (bytes 114–170), which is replaced whole; the others decode to text without secrets.
    expect(result.output.split('\n')).toEqual([lines[0], lines[1], '[REDACTED:AWS Key]', ...lines.slice(3)]);
    expect(result.events).toEqual([{ rule: 'AWS Key', count: 1 }]);
  });
});

describe('detect_encoding: ordinary encoded data is left alone', () => {
  it('hashes, ids and long identifiers are not redacted', () => {
    const sha256 = createHash('sha256').update('hello').digest('hex');
    const sha512b64 = createHash('sha512').update('hello').digest('base64');
    const samples = [
      `commit ${sha256}`,
      `integrity sha512-${sha512b64}`,
      `id 123e4567-e89b-12d3-a456-426614174000`,
      `path /usr/local/lib/node_modules/typescript/lib/tsserver.js`,
      `name internationalizationConfigurationProvider`,
      `random ${randomBytes(48).toString('base64')} ${randomBytes(32).toString('hex')}`,
      `plain base64 text ${b64('just an ordinary sentence with nothing secret in it')}`,
    ];
    for (const text of samples) expect(scan(text)).toMatchObject({ output: text, redacted: false, events: [] });
  });

  it('many random runs: no false positives', () => {
    const parts: string[] = [];
    for (let i = 0; i < 2000; i += 1) parts.push(i % 2 === 0 ? randomBytes(16 + (i % 40), i).toString('base64') : randomBytes(8 + (i % 30), i).toString('hex'));
    const text = parts.join(' ');
    expect(scan(text).output).toBe(text);
  });
});

describe('detect_encoding: MCP base64 payloads', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(4096)]).toString('base64');

  it('image/audio data and resource blobs are decoded and, when text with a secret, replaced whole', () => {
    const result = {
      content: [
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'audio', data: b64(`transcript: card 4111-1111-1111-1111`), mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///k', blob: b64(`[default]\naws_access_key_id=${KEY}\n`) } },
      ],
    };
    const out = detecting.redactResponse(result);
    const value = out.value as typeof result;
    expect(value.content[0]).toBe(result.content[0]);
    expect(value.content[1]).toEqual({ type: 'audio', data: '[REDACTED:Credit Card]', mimeType: 'audio/wav' });
    expect(value.content[2]).toEqual({ type: 'resource', resource: { uri: 'file:///k', blob: '[REDACTED:AWS Key]' } });
    expect(out.events).toEqual([
      { rule: 'AWS Key', count: 1 },
      { rule: 'Credit Card', count: 1 },
    ]);
  });

  it('a payload that decodes to text without secrets is untouched', () => {
    const result = { content: [{ type: 'resource', resource: { uri: 'file:///r', blob: b64('hello world, nothing here at all') } }] };
    expect(detecting.redactResponse(result).value).toBe(result);
  });
});

describe('encoding helpers', () => {
  it('findRuns locates every run exactly', () => {
    const text = 'aa /x/QUJDREVGR0hJSktMTU5PUA== b 0123456789abcdef0123 short é c2VjcmV0c2VjcmV0c2VjcmV0';
    const runs = findRuns(text).map((r) => text.slice(r.start, r.end));
    expect(runs).toEqual(['/x/QUJDREVGR0hJSktMTU5PUA==', '0123456789abcdef0123', 'c2VjcmV0c2VjcmV0c2VjcmV0']);
  });

  it('looksLikeText accepts UTF-8 text and rejects binary', () => {
    expect(looksLikeText(Buffer.from('héllo wörld\n\ttab 😀'))).toBe(true);
    expect(looksLikeText(randomBytes(64))).toBe(false);
    expect(looksLikeText(Buffer.alloc(0))).toBe(false);
    expect(looksLikeText(Buffer.from([0, 1, 2, 3, 0x61]))).toBe(false);
  });

  it('decodeRun tries hex and base64', () => {
    expect(decodeRun(hex('hello world!!'))).toContain('hello world!!');
    expect(decodeRun(b64('hello world!!'))).toEqual(['hello world!!']);
  });
});

describe('patterns used by the detector', () => {
  it('an engine with only request patterns does not decode responses', () => {
    const only: PatternSpec[] = [['Req', 'AKIA[0-9A-Z]{16}', 'request']];
    const engine = new DlpEngine(dlpConfig(only, { detectEncoding: true }));
    const text = b64(KEY);
    expect(engine.scanText(text, 'response').output).toBe(text);
  });
});
