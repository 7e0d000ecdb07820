import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src-shared/canonical.js';
import { canonicalData, canonicalEntryText, checkpointSigningBytes, entryHash, GENESIS_HASH, normaliseData } from './chain.js';
import { createHash } from 'node:crypto';

describe('canonical entry form', () => {
  const samples = [
    {},
    { b: 1, a: [3, 2, 1], nested: { z: null, y: true, x: 'é\u2028"quote"\\' } },
    { unicode: '日本語 🙂', num: 1e21, small: 0.000001, neg: -0, big: 9007199254740991 },
  ];

  it.each(samples)('assembling from stored text equals RFC 8785 of the whole entry (%#)', (data) => {
    const dataJson = canonicalData(data);
    const body = { index: 7, id: 'id-\u00e9', ts: '2026-01-01T00:00:00.000Z', event: 'operator.note', dataJson };
    expect(canonicalEntryText(body)).toBe(canonicalJson({ index: 7, id: 'id-\u00e9', ts: body.ts, event: body.event, data: JSON.parse(dataJson) }));
  });

  it('hashes prev_hash followed by the canonical entry', () => {
    const body = { index: 0, id: 'a', ts: 't', event: 'x.y', dataJson: '{}' };
    const expected = createHash('sha256').update(GENESIS_HASH + canonicalEntryText(body)).digest('hex');
    expect(entryHash(GENESIS_HASH, body)).toBe(expected);
    expect(entryHash('1'.repeat(64), body)).not.toBe(expected);
  });

  it('drops undefined and sorts keys in stored data; refuses non-objects', () => {
    expect(canonicalData({ b: 1, a: undefined, c: 'x' })).toBe('{"b":1,"c":"x"}');
    expect(() => canonicalData([1, 2])).toThrow(/JSON object/);
    expect(() => canonicalData('text')).toThrow(/JSON object/);
  });

  it('checkpoint signing bytes ignore the signature field and carry a type tag', () => {
    const body = { id: 'c', index: 3, hash: 'h', createdAt: 't', keyFingerprint: 'k' };
    const withSignature = { ...body, signature: 'sig' };
    expect(checkpointSigningBytes(withSignature).equals(checkpointSigningBytes(body))).toBe(true);
    expect(checkpointSigningBytes(body).toString()).toContain('"type":"silas.audit.checkpoint/v1"');
  });
});

describe('the fast canonical path agrees with stringify → parse → RFC 8785', () => {
  const slow = (data: unknown) => canonicalJson(JSON.parse(JSON.stringify(data)));
  function randomValue(depth: number, next: () => number): unknown {
    const pick = Math.floor(next() * (depth > 3 ? 5 : 7));
    const strings = ['', 'a', 'é', '\u2028', '"q"', '\\', '日本', '\ud83d\ude00', '\ud800', '10', '9', '__x', 'A', 'a b'];
    switch (pick) {
      case 0: return strings[Math.floor(next() * strings.length)];
      case 1: return [0, -0, 1, -1.5, 1e21, 1e-7, 123456789012, 0.1 + 0.2][Math.floor(next() * 8)];
      case 2: return next() < 0.5;
      case 3: return null;
      case 4: return undefined;
      case 5: return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(depth + 1, next) ?? null);
      default: {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < Math.floor(next() * 5); i += 1) o[strings[Math.floor(next() * strings.length)]!] = randomValue(depth + 1, next);
        return o;
      }
    }
  }

  it('on 2,000 random JSON objects, including odd strings, numbers, undefined members and integer-like keys', () => {
    let seed = 42;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 2000; i += 1) {
      const data = { root: randomValue(0, next), ['10']: i, ['9']: -0 };
      expect(normaliseData(data).json).toBe(slow(data));
      expect(normaliseData(data).value).toEqual(JSON.parse(slow(data)));
    }
  });

  it('on 2,000 random JSON objects without integer-like keys (the sorted-copy route), and a copy that shares nothing', () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const withoutIndexKeys = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(withoutIndexKeys);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(Object.entries(value).filter(([key]) => !/^[0-9]/.test(key)).map(([key, item]) => [key, withoutIndexKeys(item)]));
    };
    for (let i = 0; i < 2000; i += 1) {
      const data = { root: withoutIndexKeys(randomValue(0, next)), zeta: [i, -0, { b: 'x', a: 'y' }], alpha: { 'key-1': 1 } };
      const normal = normaliseData(data);
      expect(normal.json).toBe(slow(data));
      expect(normal.value).toEqual(JSON.parse(slow(data)));
      expect(normal.value.zeta).not.toBe(data.zeta);
    }
    expect(normaliseData({ z: 1, a: { '0': 1, b: 2 }, m: -0 }).json).toBe('{"a":{"0":1,"b":2},"m":0,"z":1}');
  });

  it('gives the same bytes whether keys arrive in order, reversed, or out of order only at the end', () => {
    // Writers on the hot path set keys in order so the copy skips the sort; any other order must still be sorted.
    const keys = ['args', 'decision', 'direction', 'method', 'policy_mode', 'reason', 'server', 'session_id', 'tool', 'violation', 'Z', 'é', '\ud83d\ude00', '\uff61'];
    const build = (order: string[]) => Object.fromEntries(order.map((key) => [key, key === 'args' ? { b: 2, a: [1] } : `${key}-value`]));
    const orders = [[...keys].sort(), [...keys].sort().reverse(), [...[...keys].sort().slice(0, -2), ...[...keys].sort().slice(-2).reverse()], keys];
    const expected = slow(build(keys));
    for (const order of orders) {
      const normal = normaliseData(build(order));
      expect(normal.json).toBe(expected);
      expect(Object.keys(normal.value)).toEqual([...keys].sort());
    }
  });

  it('falls back for what plain JSON cannot express directly, with the same result', () => {
    for (const data of [{ d: new Date(0) }, { a: [1, undefined, 3] }, { n: Number.NaN }, { f: () => 1, k: 'v' }, JSON.parse('{"__proto__":{"x":1},"y":2}')]) {
      expect(normaliseData(data).json).toBe(slow(data));
    }
  });
});
