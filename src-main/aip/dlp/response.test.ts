import { describe, expect, it } from 'vitest';
import { DlpEngine } from './engine.js';
import { dlpConfig, type PatternSpec } from './testing/dlp.js';
import { DlpInputError } from './walk.js';

const EMAIL: PatternSpec = ['Email', '[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}'];
const AWS: PatternSpec = ['AWS Key', 'AKIA[0-9A-Z]{16}'];
const KEY = 'AKIAIOSFODNN7EXAMPLE';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const engine = new DlpEngine(dlpConfig([EMAIL, AWS]));

describe('redactResponse: structure preservation', () => {
  it('returns the very same object when nothing matches', () => {
    const result = deepFreeze({ content: [{ type: 'text', text: 'fine' }], structuredContent: { a: [1, 2, { b: 'c' }] } });
    const out = engine.redactResponse(result);
    expect(out.value).toBe(result);
    expect(out).toMatchObject({ redacted: false, events: [], warnings: [] });
  });

  it('copies only the path to a changed string; untouched subtrees keep their identity', () => {
    const result = deepFreeze({
      content: [
        { type: 'text', text: 'clean' },
        { type: 'text', text: 'mail me: a@b.io', annotations: { audience: ['user'], priority: 0.5 } },
      ],
      structuredContent: { left: { deep: ['x', { y: 'z' }] }, right: { list: [1, 'alice@example.com', true] } },
      isError: false,
      _meta: { trace: { id: 'abc' } },
    });
    const out = engine.redactResponse(result).value as typeof result;
    expect(out).not.toBe(result);
    expect(out.content).not.toBe(result.content);
    expect(out.content[0]).toBe(result.content[0]);
    expect(out.content[1]).not.toBe(result.content[1]);
    expect(out.content[1]!.annotations).toBe(result.content[1]!.annotations);
    expect(out.content[1]!.text).toBe('mail me: [REDACTED:Email]');
    expect(out.structuredContent.left).toBe(result.structuredContent.left);
    expect(out.structuredContent.right.list).toEqual([1, '[REDACTED:Email]', true]);
    expect(out._meta).toBe(result._meta);
    expect(out.isError).toBe(false);
    // The input was not mutated (it is frozen, and still holds the originals).
    expect(result.content[1]!.text).toBe('mail me: a@b.io');
  });

  it('keeps key order and non-string values exactly', () => {
    const result = { z: 1, a: 'a@b.io', m: null, b: [true, false, 0, -1.5, 1e300, 'x@y.io'], c: { n: 2 } };
    const out = engine.redactResponse(result).value as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['z', 'a', 'm', 'b', 'c']);
    expect(JSON.stringify(out)).toBe('{"z":1,"a":"[REDACTED:Email]","m":null,"b":[true,false,0,-1.5,1e+300,"[REDACTED:Email]"],"c":{"n":2}}');
    expect(out.c).toBe(result.c);
  });

  it('scans object keys and renames a redacted key in place', () => {
    const result = { structuredContent: { 'a@b.io': 'c@d.io', [KEY]: 1, plain: 2 } };
    const out = engine.redactResponse(result).value as { structuredContent: Record<string, unknown> };
    expect(Object.entries(out.structuredContent)).toEqual([
      ['[REDACTED:Email]', '[REDACTED:Email]'],
      ['[REDACTED:AWS Key]', 1],
      ['plain', 2],
    ]);
  });

  it('keeps __proto__ keys as data and pollutes nothing', () => {
    const result = JSON.parse('{"structuredContent":{"__proto__":{"polluted":"a@b.io"},"x":"c@d.io"}}') as Record<string, unknown>;
    const out = engine.redactResponse(result).value as { structuredContent: Record<string, unknown> };
    expect(Object.prototype.hasOwnProperty.call(out.structuredContent, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out.structuredContent)).toBe(Object.prototype);
    expect(Object.keys(out.structuredContent)).toEqual(['__proto__', 'x']);
    expect(JSON.stringify(out)).toBe('{"structuredContent":{"__proto__":{"polluted":"[REDACTED:Email]"},"x":"[REDACTED:Email]"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps a null prototype', () => {
    const inner = Object.assign(Object.create(null) as Record<string, unknown>, { a: 'a@b.io' });
    const out = engine.redactResponse({ structuredContent: inner }).value as { structuredContent: object };
    expect(Object.getPrototypeOf(out.structuredContent)).toBeNull();
    expect(out.structuredContent).toEqual(Object.assign(Object.create(null) as object, { a: '[REDACTED:Email]' }));
  });

  it('handles non-object results', () => {
    expect(engine.redactResponse('a@b.io').value).toBe('[REDACTED:Email]');
    expect(engine.redactResponse(42).value).toBe(42);
    expect(engine.redactResponse(null).value).toBeNull();
    expect(engine.redactResponse(['a@b.io', 1]).value).toEqual(['[REDACTED:Email]', 1]);
  });

  it('rejects values that are not trees (cycles, shared containers) instead of looping', () => {
    const cyclic: Record<string, unknown> = { a: 'x' };
    cyclic.self = cyclic;
    expect(() => engine.redactResponse(cyclic)).toThrow(DlpInputError);
    const shared = { s: 'a@b.io' };
    expect(() => engine.redactResponse({ one: shared, two: shared })).toThrow(DlpInputError);
  });
});

describe('redactResponse: MCP content items', () => {
  it('text: scans text and other fields, never the type', () => {
    const typeWord = new DlpEngine(dlpConfig([['Word', 'text|image|resource_link']]));
    const result = { content: [{ type: 'text', text: 'some text', _meta: { note: 'an image' } }] };
    expect(typeWord.redactResponse(result).value).toEqual({ content: [{ type: 'text', text: 'some [REDACTED:Word]', _meta: { note: 'an [REDACTED:Word]' } }] });
  });

  it('image and audio: data is not scanned without detect_encoding', () => {
    const item = { type: 'image', data: b64(`secret ${KEY}`), mimeType: 'image/png' };
    const audio = { type: 'audio', data: KEY, mimeType: 'audio/wav' };
    const result = { content: [item, audio] };
    expect(engine.redactResponse(result).value).toBe(result);
  });

  it('resource: resource.text and uri are scanned, blob is not without detect_encoding', () => {
    const result = {
      content: [
        { type: 'resource', resource: { uri: 'file:///home/a@b.io/x', mimeType: 'text/plain', text: `key ${KEY}` } },
        { type: 'resource', resource: { uri: 'file:///bin', mimeType: 'application/octet-stream', blob: b64(KEY) } },
      ],
    };
    const out = engine.redactResponse(result);
    expect(out.value).toEqual({
      content: [
        { type: 'resource', resource: { uri: 'file:///home/[REDACTED:Email]/x', mimeType: 'text/plain', text: 'key [REDACTED:AWS Key]' } },
        result.content[1],
      ],
    });
    expect((out.value as typeof result).content[1]).toBe(result.content[1]);
    expect(out.events).toEqual([
      { rule: 'Email', count: 1 },
      { rule: 'AWS Key', count: 1 },
    ]);
  });

  it('resource_link: uri, name, title and description are scanned', () => {
    const result = { content: [{ type: 'resource_link', uri: `s3://bucket/${KEY}`, name: 'a@b.io', title: 't', description: `owner c@d.io`, mimeType: 'text/plain', size: 3 }] };
    expect(engine.redactResponse(result).value).toEqual({
      content: [{ type: 'resource_link', uri: 's3://bucket/[REDACTED:AWS Key]', name: '[REDACTED:Email]', title: 't', description: 'owner [REDACTED:Email]', mimeType: 'text/plain', size: 3 }],
    });
  });

  it('unknown item types: every string field, type included', () => {
    const result = { content: [{ type: `custom-${KEY}`, payload: { note: 'a@b.io' }, data: KEY }] };
    expect(engine.redactResponse(result).value).toEqual({ content: [{ type: 'custom-[REDACTED:AWS Key]', payload: { note: '[REDACTED:Email]' }, data: '[REDACTED:AWS Key]' }] });
  });

  it('structuredContent: every string at any depth; a type/data shape there is not special', () => {
    const result = { content: [], structuredContent: { type: 'image', data: KEY, rows: [{ v: [[['a@b.io']]] }] } };
    expect(engine.redactResponse(result).value).toEqual({ content: [], structuredContent: { type: 'image', data: '[REDACTED:AWS Key]', rows: [{ v: [[['[REDACTED:Email]']]] }] } });
  });

  it('isError results are redacted like any other', () => {
    const result = { content: [{ type: 'text', text: `failed with ${KEY}` }], isError: true };
    expect(engine.redactResponse(result).value).toEqual({ content: [{ type: 'text', text: 'failed with [REDACTED:AWS Key]' }], isError: true });
  });

  it('resources/read contents: text scanned, blob only with detect_encoding', () => {
    const result = {
      contents: [
        { uri: 'file:///a', mimeType: 'text/plain', text: 'a@b.io' },
        { uri: 'file:///b', blob: b64(`k ${KEY}`) },
      ],
    };
    expect(engine.redactResponse(result).value).toEqual({ contents: [{ uri: 'file:///a', mimeType: 'text/plain', text: '[REDACTED:Email]' }, result.contents[1]] });
    const detecting = new DlpEngine(dlpConfig([EMAIL, AWS], { detectEncoding: true }));
    expect(detecting.redactResponse(result).value).toEqual({
      contents: [
        { uri: 'file:///a', mimeType: 'text/plain', text: '[REDACTED:Email]' },
        { uri: 'file:///b', blob: '[REDACTED:AWS Key]' },
      ],
    });
  });

  it('MCP rules apply only at result.content[] — nested content arrays are ordinary JSON', () => {
    const result = { structuredContent: { content: [{ type: 'image', data: KEY }] } };
    expect(engine.redactResponse(result).value).toEqual({ structuredContent: { content: [{ type: 'image', data: '[REDACTED:AWS Key]' }] } });
  });
});

describe('redactError', () => {
  it('scans message and every string in data; code untouched', () => {
    const error = { code: -32603, message: `upstream failed for a@b.io`, data: { detail: [`key ${KEY}`, 3], a: 'ok' } };
    const out = engine.redactError(error);
    expect(out.value).toEqual({ code: -32603, message: 'upstream failed for [REDACTED:Email]', data: { detail: ['key [REDACTED:AWS Key]', 3], a: 'ok' } });
    expect((out.value as typeof error).data).not.toBe(error.data);
    expect(out.events).toEqual([
      { rule: 'Email', count: 1 },
      { rule: 'AWS Key', count: 1 },
    ]);
  });

  it('returns the same object when clean, and handles a string data', () => {
    const clean = { code: 1, message: 'nope' };
    expect(engine.redactError(clean).value).toBe(clean);
    expect(engine.redactError({ code: 1, message: 'm', data: 'a@b.io' }).value).toEqual({ code: 1, message: 'm', data: '[REDACTED:Email]' });
  });
});
