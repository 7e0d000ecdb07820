/** Cosine of two vectors of one size (for unit vectors, their dot product). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export function lengthOf(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
}

/** A paraphrase pair and a sentence about something else, as spec 002 §6.2's recall must tell apart. */
export const PARAPHRASE = {
  a: 'I prefer tabs over spaces for indentation',
  b: 'use tab characters to indent code',
  unrelated: 'the quarterly tax filing deadline is approaching',
} as const;
