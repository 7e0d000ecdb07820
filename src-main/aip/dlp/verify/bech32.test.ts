import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { passesBech32 } from './bech32.js';
import { segwitAddress } from './testing/encode.js';

function flip(text: string, at: number): string {
  const c = text[at] === 'q' ? 'p' : 'q';
  return text.slice(0, at) + c + text.slice(at + 1);
}

describe('bech32', () => {
  it('accepts v0 (bech32) and v1+ (bech32m) addresses on mainnet and testnet, in one case', () => {
    const addresses = [
      segwitAddress('bc', 0, randomBytes(20)),
      segwitAddress('bc', 0, randomBytes(32)),
      segwitAddress('tb', 0, randomBytes(20)),
      segwitAddress('bc', 1, randomBytes(32)),
      segwitAddress('tb', 1, randomBytes(32)),
      segwitAddress('bc', 16, randomBytes(2)),
      segwitAddress('bc', 2, randomBytes(40)),
    ];
    for (const address of addresses) {
      expect(passesBech32(address), address).toBe(true);
      expect(passesBech32(address.toUpperCase()), address).toBe(true);
    }
  });

  it('refuses a changed character, mixed case, the other checksum variant, other prefixes', () => {
    const address = segwitAddress('bc', 0, randomBytes(20));
    for (const at of [4, 20, address.length - 1]) expect(passesBech32(flip(address, at))).toBe(false);
    expect(passesBech32(address.slice(0, 10) + address.slice(10).toUpperCase())).toBe(false);
    expect(passesBech32(segwitAddress('bc', 0, randomBytes(20), 'bech32m'))).toBe(false);
    expect(passesBech32(segwitAddress('bc', 1, randomBytes(32), 'bech32'))).toBe(false);
    const other = segwitAddress('bc', 0, randomBytes(20)).replace(/^bc/, 'ltc');
    expect(passesBech32(other)).toBe(false);
  });

  it('refuses witness programs of a length the version does not allow', () => {
    expect(passesBech32(segwitAddress('bc', 0, randomBytes(25)))).toBe(false);
    expect(passesBech32(segwitAddress('bc', 1, randomBytes(1)))).toBe(false);
    expect(passesBech32(segwitAddress('bc', 1, randomBytes(41)))).toBe(false);
  });

  it('refuses unreadable and oversized text', () => {
    for (const text of ['', 'bc1', 'bc1qqqqqqq', 'bc1qbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', `bc1${'q'.repeat(200)}`, 'not an address']) expect(passesBech32(text), text).toBe(false);
  });
});
