import { copyFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { LocalWordVectorEmbedder } from './local-embedder.js';
import { findBuilderScript, storeTable } from './word-vector-builder.js';
import { defaultTablePath, readWordVectorTable } from './word-vector-table.js';

// Damaged copies of the real table: each must be refused, with the command that rebuilds it.
const tempDir = useTempDirs('silas-word-vectors-');
let original: string;
beforeAll(async () => {
  await LocalWordVectorEmbedder.whenReady();
  original = defaultTablePath();
}, 120_000);

function damagedCopy(damage: (path: string) => void): string {
  const path = join(tempDir(), 'word-vectors-v1.bin');
  copyFileSync(original, path);
  damage(path);
  return path;
}

function rewrite(path: string, change: (bytes: Buffer) => void): void {
  const bytes = readFileSync(path);
  change(bytes);
  writeFileSync(path, bytes);
}

const REBUILD = /rebuild it with `node scripts\/build-word-vectors\.js`$/;

describe('the word-vector table file', () => {
  it('reads the real table: 200,000 words of 100 dimensions, every word found by the index', async () => {
    const table = await readWordVectorTable(original);
    expect({ dims: table.dims, count: table.count }).toEqual({ dims: 100, count: 200_000 });
    for (const word of ['the', 'indentation', 'tabs', 'well-known', 'cafe']) expect(table.indexOf(word)).toBeGreaterThanOrEqual(0);
    expect(table.indexOf('the')).toBe(0);
    for (const word of ['', 'zzqxv', 'The', ',', 'the ']) expect(table.indexOf(word)).toBe(-1);
    expect(Math.hypot(...table.common)).toBeCloseTo(1, 5);
  });

  it('refuses a truncated table', async () => {
    const path = damagedCopy((p) => truncateSync(p, 5_000_000));
    await expect(readWordVectorTable(path)).rejects.toMatchObject({ code: 'E_CORRUPT', message: expect.stringMatching(/is truncated \(5000000 bytes, \d+ expected\); rebuild it with/) });
    await expect(LocalWordVectorEmbedder.open({ tablePath: path })).rejects.toMatchObject({ message: expect.stringMatching(REBUILD) });
  });

  it('refuses a table with one byte changed in a vector, by its checksum', async () => {
    const path = damagedCopy((p) => rewrite(p, (bytes) => (bytes[bytes.length - 1000] = bytes[bytes.length - 1000]! ^ 0x01)));
    await expect(readWordVectorTable(path)).rejects.toMatchObject({ code: 'E_CORRUPT', message: expect.stringMatching(/its SHA-256 checksum does not match\); rebuild it with/) });
  });

  it('refuses another file, another format version, and an empty file', async () => {
    const foreign = damagedCopy((p) => rewrite(p, (bytes) => bytes.write('NOTSILAS', 0, 'latin1')));
    await expect(readWordVectorTable(foreign)).rejects.toMatchObject({ message: expect.stringMatching(/is not a Silas word-vector table; rebuild it with/) });
    const newer = damagedCopy((p) => rewrite(p, (bytes) => bytes.writeUInt32LE(2, 8)));
    await expect(readWordVectorTable(newer)).rejects.toMatchObject({ message: expect.stringMatching(/has format version 2, and this Silas reads version 1; rebuild/) });
    const empty = damagedCopy((p) => writeFileSync(p, ''));
    await expect(readWordVectorTable(empty)).rejects.toMatchObject({ code: 'E_CORRUPT', message: expect.stringMatching(REBUILD) });
  });

  it('is not written where it cannot be, and says where', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'not a folder');
    const result = await storeTable(join(file, 'word-vectors-v1.bin'), new Uint8Array(8));
    expect(result).toEqual({ stored: false, reason: expect.stringMatching(/a-file\/word-vectors-v1\.bin could not be written \(E[A-Z]+\)$/) });
  });

  it('finds its build script from the sources', () => {
    expect(findBuilderScript()).toMatch(/scripts\/build-word-vectors\.js$/);
  });
});
