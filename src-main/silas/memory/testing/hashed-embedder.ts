import { createHash } from 'node:crypto';
import type { Embedder } from '../embedding/embedder.js';

/*
 * A deterministic embedder for tests of the vector index, the retriever and the Stream: each word
 * (lowercased, letters and digits) is hashed to a few signed dimensions, and words listed as
 * synonyms share one, so a test decides exactly which texts are "close in meaning". It needs no
 * table and no server, and it counts its calls.
 */
export interface HashedEmbedder extends Embedder {
  calls: string[][];
}

export function hashedEmbedder(options: { dimensions?: number; id?: string; synonyms?: readonly (readonly string[])[]; delayMs?: number } = {}): HashedEmbedder {
  const dimensions = options.dimensions ?? 64;
  const canonical = new Map<string, string>();
  for (const group of options.synonyms ?? []) for (const word of group) canonical.set(word, group[0]!);
  const calls: string[][] = [];
  return {
    id: options.id ?? `test:hashed:${dimensions}`,
    calls,
    dimensions: async () => dimensions,
    async embed(texts, signal) {
      calls.push([...texts]);
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      signal?.throwIfAborted();
      return texts.map((text) => {
        const vector = new Float32Array(dimensions);
        for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          const word = canonical.get(raw) ?? raw;
          const digest = createHash('sha256').update(word).digest();
          for (let i = 0; i < 3; i++) {
            const at = digest[i]! % dimensions;
            vector[at] = vector[at]! + (digest[i + 3]! & 1 ? 1 : -1);
          }
        }
        const norm = Math.hypot(...vector);
        return norm === 0 ? vector : vector.map((value) => value / norm);
      });
    },
  };
}
