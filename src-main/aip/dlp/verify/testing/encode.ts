import { createHash, randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { bech32Polymod } from '../bech32.js';
import { luhnValid } from '../luhn.js';

/*
 * Test helpers: the encoders the checks only decode, so tests make their own valid values from
 * random bytes (and then break them) instead of copying real ones.
 */

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();

export function base58Encode(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

export function base58CheckEncode(payload: Uint8Array): string {
  return base58Encode(Buffer.concat([payload, sha256(sha256(payload)).subarray(0, 4)]));
}

/** A P2PKH (0x00) or P2SH (0x05) address of random hash160. */
export function bitcoinAddress(version: 0x00 | 0x05): string {
  return base58CheckEncode(Buffer.concat([Buffer.from([version]), randomBytes(20)]));
}

/** A WIF private key of a random key, compressed (`K`/`L`) or not (`5`). */
export function wifKey(compressed: boolean): string {
  return base58CheckEncode(Buffer.concat([Buffer.from([0x80]), randomBytes(32), Buffer.from(compressed ? [1] : [])]));
}

function eightToFive(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = ((acc << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >> bits) & 31);
    }
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

/** A segwit address: witness version 0 uses bech32, 1–16 bech32m (BIP-350). */
export function segwitAddress(hrp: 'bc' | 'tb', version: number, program: Uint8Array, variant: 'bech32' | 'bech32m' = version === 0 ? 'bech32' : 'bech32m'): string {
  const data = [version, ...eightToFive(program)];
  const constant = variant === 'bech32' ? 1 : 0x2bc830a3;
  const mod = bech32Polymod(hrp, [...data, 0, 0, 0, 0, 0, 0]) ^ constant;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...data, ...checksum].map((v) => BECH32[v]).join('')}`;
}

/** `0x` and 40 hex digits of random bytes, with its EIP-55 checksum case. */
export function ethereumAddress(): string {
  const hex = randomBytes(20).toString('hex');
  const hash = keccak_256(new TextEncoder().encode(hex));
  const cased = [...hex].map((c, i) => ((hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf) >= 8 ? c.toUpperCase() : c).join('');
  return `0x${cased}`;
}

/** The mnemonic of `entropy` (16–32 bytes, a multiple of 4). */
export function mnemonic(entropy: Uint8Array): string {
  const bits = [...entropy].map((b) => b.toString(2).padStart(8, '0')).join('');
  const checksum = [...sha256(entropy)].map((b) => b.toString(2).padStart(8, '0')).join('').slice(0, entropy.length / 4);
  const all = bits + checksum;
  return Array.from({ length: all.length / 11 }, (_, i) => wordlist[parseInt(all.slice(i * 11, i * 11 + 11), 2)]).join(' ');
}

/** `prefix` followed by digits up to `length`, the last one the Luhn check digit. */
export function cardNumber(prefix: string, length: number): string {
  const body = prefix + Array.from({ length: length - prefix.length - 1 }, () => String(randomBytes(1)[0]! % 10)).join('');
  for (let d = 0; d <= 9; d++) {
    const candidate = body + String(d);
    if (luhnValid([...candidate].map(Number))) return candidate;
  }
  throw new Error('unreachable: one check digit always fits');
}
