/**
 * 2^bits distinct words of `bits` characters that differ only in bit 15 of a character (`a` or
 * U+8061): under a hash built from xor and multiply (FNV) they share their low bits, so a table
 * indexed by those bits puts them all in one slot. An agent can send them.
 */
export function collidingWords(bits: number): string[] {
  return Array.from({ length: 2 ** bits }, (_, n) => Array.from({ length: bits }, (_, b) => String.fromCharCode(0x61 | (((n >> b) & 1) << 15))).join(''));
}

/**
 * The same number of distinct words of the same length, as non-ASCII (so they take the same path
 * through the matcher), that differ in a low bit (U+8061 or U+8062): no shared slot.
 */
export function ordinaryWords(bits: number): string[] {
  return Array.from({ length: 2 ** bits }, (_, n) => Array.from({ length: bits }, (_, b) => String.fromCharCode(0x8061 + ((n >> b) & 1))).join(''));
}
