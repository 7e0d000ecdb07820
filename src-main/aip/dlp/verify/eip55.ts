import { keccak_256 } from '@noble/hashes/sha3.js';
import { shannonEntropy } from './entropy.js';

/*
 * The Ethereum address check (`x-silas-verify: eip55`): `0x` and 40 hex digits. Mixed case
 * carries the EIP-55 checksum (a letter is upper case exactly when the matching nibble of
 * keccak-256 of the lower-case address is 8 or more), and must pass it. All-lower or all-upper
 * case carries none, and hashes, ids and test fixtures take that shape too; such an address
 * counts only when it is not one digit repeated (`0x000…0`, the zero address everyone quotes)
 * and its hex has at least MIN_UNCHECKED_ENTROPY bits per character (random hex reaches about
 * 3.8 of the 4 possible; `0xdeadbeef…` patterns and mostly-zero constants fall short).
 */

const HEX_DIGITS = 40;
const MIN_UNCHECKED_ENTROPY = 3.0;

function isHex(c: string): boolean {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/** Whether mixed-case `hex` (40 digits, no `0x`) carries a right EIP-55 checksum. */
function eip55ChecksumValid(hex: string): boolean {
  const lower = hex.toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  for (let i = 0; i < HEX_DIGITS; i++) {
    const c = hex[i]!;
    if (c >= '0' && c <= '9') continue;
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    if ((nibble >= 8) !== (c >= 'A' && c <= 'F')) return false;
  }
  return true;
}

/** Whether `match` reads as an Ethereum address (see above). */
export function passesEip55(match: string): boolean {
  const text = match.trim();
  if (text.length !== HEX_DIGITS + 2 || !text.startsWith('0x')) return false;
  const hex = text.slice(2);
  if (![...hex].every(isHex)) return false;
  const mixed = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (mixed) return eip55ChecksumValid(hex);
  if ([...hex].every((c) => c === hex[0])) return false;
  return shannonEntropy(hex.toLowerCase()) >= MIN_UNCHECKED_ENTROPY;
}
