import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src-shared/canonical.js';
import { canonicalData, canonicalEntryText, checkpointSigningBytes, entryHash, GENESIS_HASH } from './chain.js';
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
