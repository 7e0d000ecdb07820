/*
 * The Bech32 check (`x-silas-verify: bech32`) for Bitcoin segwit addresses, `bc1…` (mainnet) and
 * `tb1…` (testnet): the BCH checksum of BIP-173 (bech32, witness version 0) or BIP-350 (bech32m,
 * versions 1–16, e.g. Taproot), and a witness program of a length the version allows. Six
 * checksum characters make a random string pass with odds of one in a billion.
 */

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const VALUE = new Map([...CHARSET].map((c, i) => [c, i]));
const HRPS = new Set(['bc', 'tb']);
/** BIP-173's limit on a whole bech32 string. */
const MAX_LENGTH = 90;
const CHECKSUM_LENGTH = 6;
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const value of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ value) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ GENERATORS[i]!) >>> 0;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const high = [...hrp].map((c) => c.charCodeAt(0) >> 5);
  const low = [...hrp].map((c) => c.charCodeAt(0) & 31);
  return [...high, 0, ...low];
}

/** The checksum constant `hrp` + `data` (5-bit values, checksum included) ends in. */
export function bech32Polymod(hrp: string, data: readonly number[]): number {
  return polymod([...hrpExpand(hrp), ...data]);
}

/** Regroups 5-bit values into bytes; null when the padding is not zero bits, under 5 of them (BIP-173). */
function fiveToEight(data: readonly number[]): number[] | null {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  for (const value of data) {
    acc = ((acc << 5) | value) & 0xfff;
    bits += 5;
    while (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  if (bits >= 5 || ((acc << (8 - bits)) & 0xff) !== 0) return null;
  return out;
}

/** Whether `match` is a Bitcoin segwit address (bc1/tb1) with a valid bech32 or bech32m checksum. */
export function passesBech32(match: string): boolean {
  const text = match.trim();
  if (text.length > MAX_LENGTH || (text !== text.toLowerCase() && text !== text.toUpperCase())) return false;
  const lower = text.toLowerCase();
  const separator = lower.lastIndexOf('1');
  if (separator < 1 || !HRPS.has(lower.slice(0, separator))) return false;
  const data: number[] = [];
  for (const c of lower.slice(separator + 1)) {
    const value = VALUE.get(c);
    if (value === undefined) return false;
    data.push(value);
  }
  if (data.length < CHECKSUM_LENGTH + 1) return false;
  const constant = bech32Polymod(lower.slice(0, separator), data);
  const version = data[0]!;
  if (version > 16 || constant !== (version === 0 ? BECH32_CONST : BECH32M_CONST)) return false;
  const program = fiveToEight(data.slice(1, data.length - CHECKSUM_LENGTH));
  if (program === null || program.length < 2 || program.length > 40) return false;
  return version !== 0 || program.length === 20 || program.length === 32;
}
