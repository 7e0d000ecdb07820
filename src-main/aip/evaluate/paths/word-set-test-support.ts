/**
 * 2^bits distinct words of `bits` characters that differ only in bit 15 of a character (`a` or
 * U+8061): under a hash built from xor and multiply (FNV) they share their low bits, so a table
 * indexed by those bits puts them all in one slot. An agent can send them.
 */
export function collidingWords(bits: number): string[] {
  return Array.from({ length: 2 ** bits }, (_, n) => Array.from({ length: bits }, (_, b) => String.fromCharCode(0x61 | (((n >> b) & 1) << 15))).join(''));
}

/** The same number of distinct words of the same length that differ in ordinary letters (`a` or `b`). */
export function ordinaryWords(bits: number): string[] {
  return Array.from({ length: 2 ** bits }, (_, n) => Array.from({ length: bits }, (_, b) => ((n >> b) & 1 ? 'b' : 'a')).join(''));
}
