import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { passesEip55 } from './eip55.js';
import { ethereumAddress } from './testing/encode.js';

/** The address with the case of its first letter swapped: the checksum no longer holds. */
function swapFirstLetterCase(address: string): string {
  const at = [...address].findIndex((c, i) => i > 1 && /[a-fA-F]/.test(c));
  if (at < 0) return address;
  const c = address[at]!;
  return address.slice(0, at) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(at + 1);
}

describe('eip55', () => {
  it('accepts checksummed addresses', () => {
    for (let i = 0; i < 20; i++) expect(passesEip55(ethereumAddress())).toBe(true);
  });

  it('refuses a mixed-case address whose checksum is wrong', () => {
    let refused = 0;
    for (let i = 0; i < 20; i++) {
      const swapped = swapFirstLetterCase(ethereumAddress()).slice(2);
      // Still mixed case, or there is no checksum left to break (one letter whose case flipped).
      if (swapped === swapped.toLowerCase() || swapped === swapped.toUpperCase()) continue;
      expect(passesEip55(`0x${swapped}`)).toBe(false);
      refused++;
    }
    expect(refused).toBeGreaterThan(10);
  });

  it('accepts random all-lower and all-upper addresses (no checksum to test) by their entropy', () => {
    for (let i = 0; i < 20; i++) {
      const hex = randomBytes(20).toString('hex');
      expect(passesEip55(`0x${hex}`)).toBe(true);
      expect(passesEip55(`0x${hex.toUpperCase()}`)).toBe(true);
    }
  });

  it('refuses the zero address, one repeated digit, low-entropy constants', () => {
    expect(passesEip55(`0x${'0'.repeat(40)}`)).toBe(false);
    expect(passesEip55(`0x${'f'.repeat(40)}`)).toBe(false);
    expect(passesEip55(`0x${'deadbeef'.repeat(5)}`)).toBe(false);
    expect(passesEip55(`0x${'0'.repeat(36)}dead`)).toBe(false);
    expect(passesEip55(`0x${'00000000000000000000000000000000000000'}01`)).toBe(false);
  });

  it('refuses other shapes', () => {
    for (const text of ['', '0x', `0x${'a'.repeat(39)}`, `0x${'a1'.repeat(21)}`, `0X${randomBytes(20).toString('hex')}`, `0x${'g'.repeat(40)}`, `0x${'ab'.repeat(50_000)}`]) {
      expect(passesEip55(text)).toBe(false);
    }
  });
});
