import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { LocalWordVectorEmbedder } from './local-embedder.js';
import { PARAPHRASE } from './testing/vectors.js';

// The one slow test (about 10 s): the table is missing, so it is built from the wink package in a
// worker thread and written where it was asked for. A temporary path: the real table is left alone.
const tempDir = useTempDirs('silas-word-vectors-build-');

describe('building the word-vector table when it is missing', () => {
  it('builds it in a worker thread, writes it, and embeds as the installed table does', async () => {
    const tablePath = join(tempDir(), 'cache', 'silas', 'word-vectors-v1.bin');
    const built: unknown[] = [];
    let turns = 0;
    const timer = setInterval(() => (turns += 1), 5);
    let fresh: LocalWordVectorEmbedder;
    try {
      fresh = await LocalWordVectorEmbedder.whenReady({ tablePath, onBuilt: (outcome) => built.push(outcome) });
    } finally {
      clearInterval(timer);
    }
    expect(built).toEqual([{ path: tablePath, stored: true }]);
    expect(existsSync(tablePath)).toBe(true);
    // The parse ran on the worker's thread: this one kept turning meanwhile.
    expect(turns).toBeGreaterThan(10);

    const installed = await LocalWordVectorEmbedder.whenReady();
    expect(fresh.id).toBe(installed.id);
    const texts = [PARAPHRASE.a, PARAPHRASE.b, 'the server crashed because it ran out of memory'];
    expect((await fresh.embed(texts)).map((v) => Array.from(v))).toEqual((await installed.embed(texts)).map((v) => Array.from(v)));

    // Asked again in this process, the table is not built again.
    await LocalWordVectorEmbedder.whenReady({ tablePath, onBuilt: (outcome) => built.push(outcome) });
    expect(built).toHaveLength(1);
  }, 180_000);
});
