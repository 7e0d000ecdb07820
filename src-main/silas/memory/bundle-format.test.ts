import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { useTempDirs } from '../../testing/temp.js';
import { itemLine, MAX_BUNDLE_LINE_BYTES } from './bundle-format.js';
import { scanBundle } from './bundle-reader.js';
import { bundleText, everyKindOfMemory, memoryItem, withTrailer } from './testing/memory-bundles.js';

const tempDir = useTempDirs('silas-bundle-format-');

function write(text: string | Buffer): string {
  const file = join(tempDir(), 'b.jsonl');
  writeFileSync(file, text);
  return file;
}

describe('bundle records', () => {
  it('are RFC 8785 canonical JSON, whatever the text holds', () => {
    const tricky = ['\u0000\u001f\u007f', '\ud800 lone surrogate', '\u2028\u2029', '"\\/', 'emoji \u{1f600}', 'é'.normalize('NFD')];
    for (const item of [...everyKindOfMemory(), ...tricky.map((content, i) => memoryItem(`t${i}`, { content, semantic_tags: [content] }))]) {
      expect(itemLine(item)).toBe(canonicalJson(item));
    }
  });
});

describe('scanBundle', () => {
  it('reads records across read-chunk boundaries and hands each over with its line number', () => {
    const items = Array.from({ length: 40 }, (_, i) => memoryItem(`m${i}`, { content: 'x'.repeat(60_000 + i) }));
    const seen: [string, number][] = [];
    const scan = scanBundle(write(bundleText(items)), { item: (item, line) => seen.push([item.memory_id, line]) });
    expect(scan.count).toBe(40);
    expect(seen).toEqual(items.map((item, i) => [item.memory_id, i + 2]));
    expect(scan.bytes).toBeGreaterThan(2 * 1024 * 1024);
  });

  it('refuses a line longer than a record may be without reading it whole', () => {
    const file = write(Buffer.alloc(MAX_BUNDLE_LINE_BYTES + 2 * 1024 * 1024, 'x'));
    expect(() => scanBundle(file)).toThrow(/is not a Silas memory bundle: line 1 is longer than 16 MiB/);
  });

  it('accepts a bundle whose trailer lost its final newline, and a bundle from a system that exports vectors', () => {
    expect(scanBundle(write(bundleText([memoryItem('a')]).trimEnd())).count).toBe(1);
    const [header, record] = bundleText([memoryItem('a')]).split('\n');
    let seen: unknown = null;
    scanBundle(write(withTrailer([header!, record!.replace('"memory_id":"a"', '"embedding":[0.1,-2],"memory_id":"a"')], 1)), { item: (item) => (seen = item) });
    expect(seen).toEqual(memoryItem('a'));
  });

  it('names the field and line of an unknown field, and of a bad trailer', () => {
    const extra = bundleText([memoryItem('a')]).replace('"memory_id":"a"', '"memory_id":"a","mood":"happy"');
    expect(() => scanBundle(write(extra))).toThrow(/line 2, field mood: not a field of this record/);
    const badTrailer = bundleText([memoryItem('a')]).replace(/"sha256":"[0-9a-f]+"/, '"sha256":"XYZ"');
    expect(() => scanBundle(write(badTrailer))).toThrow(/line 3, field sha256: expected 64 lowercase hex digits \(the trailer\)/);
  });
});
