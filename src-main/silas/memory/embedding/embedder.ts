/*
 * The Embedder of spec 002 §6.2: text to vectors for recall by meaning (§6.3's semantic branch).
 * Two implementations: averaged word vectors, local and always available
 * (local-embedder.ts), and a server of OpenAI's `/v1/embeddings` when `models.embedding` is set
 * (openai-compatible-embedder.ts). docs/silas/memory-embedding.md has the decisions.
 */

export interface Embedder {
  /** Stable identity of the vector space: changes whenever vectors would differ (implementation, model, base URL, dimensions, table version). Vectors of two ids are never compared. */
  readonly id: string;
  /** Known once ready; for a remote model learnt from its first answer. */
  dimensions(): Promise<number>;
  /** One L2-normalised vector per text, in order. A text with nothing to embed (no known word) gives an all-zero vector. Never runs more than a few ms of synchronous work at once (yield between batches), so the runtime's event loop never stalls over 50 ms. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/**
 * `vector` scaled to unit length in place; an all-zero vector (or one too small to scale
 * without dividing by almost nothing) becomes exactly zero, which the interface reserves for
 * "nothing to embed".
 */
export function normaliseInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i += 1) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (!(norm > 1e-12)) return vector.fill(0);
  for (let i = 0; i < vector.length; i += 1) vector[i] = vector[i]! / norm;
  return vector;
}

/**
 * Gives the event loop a turn (docs/architecture.md §1: nothing on it runs over ~50 ms), then
 * throws the signal's reason if the caller gave up meanwhile. `setImmediate` lets I/O callbacks
 * run first, unlike a resolved promise.
 */
export function yieldTurn(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    setImmediate(() => {
      if (signal?.aborted) reject(signal.reason);
      else resolve();
    });
  });
}
