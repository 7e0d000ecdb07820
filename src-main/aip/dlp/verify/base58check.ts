import { createHash } from 'node:crypto';

/*
 * The Base58Check check (`x-silas-verify: base58check`) for Bitcoin: P2PKH (`1…`) and P2SH
 * (`3…`) addresses and WIF private keys (`5…`, and `K…`/`L…` for compressed keys). The text must
 * decode to the right length with the right version byte, and its last four bytes must be the
 * first four of SHA-256(SHA-256(the rest)): a random string of the same shape passes with odds
 * of one in four billion.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Map([...ALPHABET].map((c, i) => [c, i]));
/** A WIF key is 52 characters; nothing this check accepts is longer. */
const MAX_LENGTH = 60;

const P2PKH = 0x00;
const P2SH = 0x05;
const WIF = 0x80;
const HASH160_LENGTH = 20;
const KEY_LENGTH = 32;
const COMPRESSED_FLAG = 0x01;
const CHECKSUM_LENGTH = 4;

/** The bytes `text` encodes in Base58 (leading `1`s are zero bytes), or null for any other character. */
export function base58Decode(text: string): Uint8Array | null {
  if (text.length > MAX_LENGTH) return null;
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  // Big-endian base-256 digits of the number, least significant last; grows as digits come in.
  const bytes: number[] = [];
  for (const c of text) {
    let carry = DIGIT.get(c);
    if (carry === undefined) return null;
    for (let i = bytes.length - 1; i >= 0; i--) {
      carry += bytes[i]! * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.unshift(carry & 0xff);
      carry >>= 8;
    }
  }
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes.slice(start)]);
}

function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

/** The payload of a Base58Check string whose checksum is right, or null. */
function base58CheckPayload(text: string): Uint8Array | null {
  const bytes = base58Decode(text);
  if (bytes === null || bytes.length <= CHECKSUM_LENGTH) return null;
  const payload = bytes.subarray(0, bytes.length - CHECKSUM_LENGTH);
  const checksum = sha256(sha256(payload));
  for (let i = 0; i < CHECKSUM_LENGTH; i++) if (checksum[i] !== bytes[payload.length + i]) return null;
  return payload;
}

/** Whether `match` is a Bitcoin mainnet P2PKH/P2SH address or WIF private key with a valid checksum. */
export function passesBase58Check(match: string): boolean {
  const payload = base58CheckPayload(match.trim());
  if (payload === null) return false;
  const version = payload[0];
  if (version === P2PKH || version === P2SH) return payload.length === 1 + HASH160_LENGTH;
  if (version !== WIF) return false;
  return payload.length === 1 + KEY_LENGTH || (payload.length === 2 + KEY_LENGTH && payload[1 + KEY_LENGTH] === COMPRESSED_FLAG);
}
