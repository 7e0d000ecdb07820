import { createHash } from 'node:crypto';

/*
 * When two queries are "identical" (spec 004 §9.2 item 3) or similar. Identical: the same text
 * lower-cased, trimmed and with its white space collapsed (the reference's rule; the fixture's
 * `query_hash_examples` hash exactly this). Similar: the Jaccard index of their word sets, a word
 * being a run of letters, digits, marks or `_` (so "spending?" and "spending" are one word).
 */

/** The text a query is hashed by. */
export function normalizeQuery(query: string): string {
  return query.toLowerCase().trim().replace(/\s+/g, ' ');
}

/** sha256 of the normalised query, hex: one episode per value. */
export function queryHash(query: string): string {
  return createHash('sha256').update(normalizeQuery(query), 'utf8').digest('hex');
}

/** Words beyond these are not compared nor indexed: a query is a question, not a document. */
export const MAX_QUERY_WORDS = 64;
const WORD = /[\p{L}\p{N}\p{M}_]+/gu;

/** The distinct words of a query, lower-cased, in order of appearance, at most MAX_QUERY_WORDS. */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const match of query.toLowerCase().matchAll(WORD)) {
    words.add(match[0]);
    if (words.size === MAX_QUERY_WORDS) break;
  }
  return [...words];
}

/** |A ∩ B| / |A ∪ B| over two word sets; 0 when both are empty (nothing to compare is no evidence). */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  const left = new Set(a);
  const right = new Set(b);
  let shared = 0;
  for (const word of left) if (right.has(word)) shared += 1;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
}
