import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58Decode, passesBase58Check } from './base58check.js';
import { base58CheckEncode, base58Encode, bitcoinAddress, wifKey } from './testing/encode.js';

/** `text` with one character changed to another of the alphabet, at `at`. */
function flip(text: string, at: number): string {
  const c = text[at] === 'z' ? 'y' : 'z';
  return text.slice(0, at) + c + text.slice(at + 1);
}

describe('base58check', () => {
  it('decodes what base58 encodes, leading zero bytes included', () => {
    for (const bytes of [new Uint8Array([0, 0, 1, 2, 255]), randomBytes(25), new Uint8Array([0])]) {
      expect([...base58Decode(base58Encode(bytes))!]).toEqual([...bytes]);
    }
    expect(base58Decode('0OIl')).toBeNull();
  });

  it('accepts P2PKH and P2SH addresses and WIF keys, compressed or not', () => {
    for (let i = 0; i < 20; i++) {
      const p2pkh = bitcoinAddress(0x00);
      const p2sh = bitcoinAddress(0x05);
      expect(p2pkh.startsWith('1')).toBe(true);
      expect(p2sh.startsWith('3')).toBe(true);
      expect(passesBase58Check(p2pkh)).toBe(true);
      expect(passesBase58Check(p2sh)).toBe(true);
      const wif = wifKey(false);
      const compressed = wifKey(true);
      expect(wif.startsWith('5')).toBe(true);
      expect(/^[KL]/.test(compressed)).toBe(true);
      expect(passesBase58Check(wif)).toBe(true);
      expect(passesBase58Check(compressed)).toBe(true);
    }
  });

  it('refuses one changed character, another version byte, the wrong length, a bad compression flag', () => {
    const address = bitcoinAddress(0x00);
    for (const at of [1, 10, address.length - 1]) expect(passesBase58Check(flip(address, at))).toBe(false);
    expect(passesBase58Check(base58CheckEncode(Buffer.concat([Buffer.from([0x30]), randomBytes(20)])))).toBe(false);
    expect(passesBase58Check(base58CheckEncode(Buffer.concat([Buffer.from([0x00]), randomBytes(21)])))).toBe(false);
    expect(passesBase58Check(base58CheckEncode(Buffer.concat([Buffer.from([0x80]), randomBytes(32), Buffer.from([2])])))).toBe(false);
  });

  it('refuses random text of the address shape and anything unreadable', () => {
    // Made-up strings of the right alphabet and length: a checksum holds once in four billion.
    expect(passesBase58Check('1MadeUpAddressForTestsXyzabcdefgh')).toBe(false);
    expect(passesBase58Check('3NotReaLAddress4TestsXyzabcdefghjk')).toBe(false);
    expect(passesBase58Check('5KMadeUpWifKeyForTestsXyzabcdefghijkmnpqrstuvwxyz123')).toBe(false);
    expect(passesBase58Check('1111111111111111111111111111111111')).toBe(false);
    expect(passesBase58Check('')).toBe(false);
    expect(passesBase58Check('1'.repeat(100_000))).toBe(false);
    expect(passesBase58Check('1MadeUpAddressForTestsXyzabcdef0O')).toBe(false);
  });
});
