import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../testing/temp.js';
import { LocalWordVectorEmbedder } from './local-embedder.js';
import { cosine, lengthOf, PARAPHRASE } from './testing/vectors.js';

// The real table beside the wink package (built by `npm ci`'s prepare, or here in a worker when
// missing), loaded once for the whole file: the module keeps one copy per path.
let embedder: LocalWordVectorEmbedder;
beforeAll(async () => {
  embedder = await LocalWordVectorEmbedder.whenReady();
}, 120_000);

const tempDir = useTempDirs('silas-embedding-');
const one = async (text: string) => (await embedder.embed([text]))[0]!;

describe('the local word-vector embedder', () => {
  it('puts a paraphrase closer than an unrelated sentence', async () => {
    const [a, b, unrelated] = await embedder.embed([PARAPHRASE.a, PARAPHRASE.b, PARAPHRASE.unrelated]);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, unrelated!) + 0.2);
    expect(cosine(b!, a!)).toBeGreaterThan(cosine(b!, unrelated!));
  });

  it('gives unit vectors of 100 dimensions, one per text in order, the same every time', async () => {
    const texts = ['the server crashed because it ran out of memory', 'pay the electricity bill', 'a', PARAPHRASE.a];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(4);
    expect(await embedder.dimensions()).toBe(100);
    for (const [i, vector] of vectors.entries()) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector.length).toBe(100);
      if (i !== 2) expect(lengthOf(vector)).toBeCloseTo(1, 5);
      expect(Array.from(await one(texts[i]!))).toEqual(Array.from(vector));
    }
    expect(await embedder.embed([])).toEqual([]);
  });

  it('gives all zeros for a text with no known word: empty, punctuation, made-up words', async () => {
    for (const text of ['', '   ', '!!! ??? ...', 'zzqxv qwfpgj', 'a'.repeat(500)]) {
      const vector = await one(text);
      expect(vector.every((value) => value === 0)).toBe(true);
    }
  });

  it('lets function words count for little, and case not at all', async () => {
    const bare = await one('tabs spaces indentation');
    expect(cosine(bare, await one('the tabs and the spaces of an indentation, which is to be over it'))).toBeGreaterThan(0.9);
    expect(Array.from(await one('TABS Spaces Indentation'))).toEqual(Array.from(bare));
  });

  it('finds a word by its base form or, for a compound, its parts', async () => {
    // "debuggers" and "sandboxing" are not in the table; "debugger" and "sandbox" are.
    expect(Array.from(await one('debuggers'))).toEqual(Array.from(await one('debugger')));
    expect(Array.from(await one('sandboxing'))).toEqual(Array.from(await one('sandbox')));
    expect(Array.from(await one('memory_search'))).toEqual(Array.from(await one('memory search')));
    expect(Array.from(await one('Café in Zürich'))).toEqual(Array.from(await one('cafe in zurich')));
  });

  it('takes turns with the event loop on a long text, and stops when asked', async () => {
    const long = `${PARAPHRASE.a} and ${PARAPHRASE.unrelated}. `.repeat(40_000);
    let turns = 0;
    const timer = setInterval(() => (turns += 1), 0);
    try {
      const [vector] = await embedder.embed([long]);
      expect(lengthOf(vector!)).toBeCloseTo(1, 5);
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThan(0);
    const controller = new AbortController();
    const pending = embedder.embed([long], controller.signal);
    controller.abort(new Error('stopped by the test'));
    await expect(pending).rejects.toThrow('stopped by the test');
    await expect(embedder.embed(['x'], AbortSignal.abort())).rejects.toThrow();
  });

  it('names its vector space after the package and the table version', () => {
    expect(embedder.id).toMatch(/^local:wink-sg-100d@\d+\.\d+\.\d+:v1$/);
  });

  it('refuses to open without a table, saying how to build one', async () => {
    const missing = join(tempDir(), 'word-vectors-v1.bin');
    await expect(LocalWordVectorEmbedder.open({ tablePath: missing })).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
      message: expect.stringContaining('`node scripts/build-word-vectors.js`'),
    });
  });
});
