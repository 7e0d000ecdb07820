import { createHash } from 'node:crypto';
import { wordlist } from '@scure/bip39/wordlists/english.js';

/*
 * The seed-phrase check (`x-silas-verify: bip39`): 12, 15, 18, 21 or 24 words of the BIP-39
 * English list whose last bits are the checksum (the first bits of SHA-256 of the entropy the
 * words encode: 4 bits for 12 words, 8 for 24). Ordinary prose fails twice: most sentences hold a
 * word outside the list (`the`, `of`, `is`…), and a run of list words passes the checksum once in
 * 16 to 256 tries.
 *
 * A pattern cannot know where a phrase starts in a longer run of lower-case words, so the match
 * is cut into runs of list words; a run of a phrase's length must pass as a whole, a longer run
 * counts when a phrase of some valid length starts or ends it (a label such as `seed:` before
 * the phrase, or a word after it, may be a list word too).
 */

const INDEX = new Map(wordlist.map((word, i) => [word, i]));
const PHRASE_LENGTHS = [12, 15, 18, 21, 24];
const MAX_WORDS = 64;
/** The longest list word is 8 letters; the whole match is bounded by the words it may hold. */
const MAX_LENGTH = MAX_WORDS * 16;
const BITS_PER_WORD = 11;

/** Whether `indexes` (word numbers in the list) form a mnemonic with a right checksum. */
function mnemonicChecksumValid(indexes: readonly number[]): boolean {
  if (!PHRASE_LENGTHS.includes(indexes.length)) return false;
  const totalBits = indexes.length * BITS_PER_WORD;
  const checksumBits = totalBits / 33;
  const entropyBytes = (totalBits - checksumBits) / 8;
  const bits: number[] = [];
  for (const index of indexes) for (let b = BITS_PER_WORD - 1; b >= 0; b--) bits.push((index >> b) & 1);
  const entropy = new Uint8Array(entropyBytes);
  for (let i = 0; i < entropyBytes * 8; i++) entropy[i >> 3]! |= bits[i]! << (7 - (i & 7));
  const hash = createHash('sha256').update(entropy).digest();
  for (let i = 0; i < checksumBits; i++) {
    if (((hash[i >> 3]! >> (7 - (i & 7))) & 1) !== bits[entropyBytes * 8 + i]) return false;
  }
  return true;
}

function words(text: string): string[] {
  const out: string[] = [];
  let word = '';
  for (const c of text) {
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (word !== '') out.push(word);
      word = '';
    } else word += c;
  }
  if (word !== '') out.push(word);
  return out;
}

function runPasses(run: readonly number[]): boolean {
  if (PHRASE_LENGTHS.includes(run.length)) return mnemonicChecksumValid(run);
  return PHRASE_LENGTHS.some((n) => n < run.length && (mnemonicChecksumValid(run.slice(0, n)) || mnemonicChecksumValid(run.slice(run.length - n))));
}

/** Whether `match` holds a BIP-39 English seed phrase (see above). */
export function passesBip39(match: string): boolean {
  if (match.length > MAX_LENGTH) return false;
  const all = words(match.toLowerCase());
  if (all.length > MAX_WORDS) return false;
  let run: number[] = [];
  for (const word of [...all, '']) {
    const index = INDEX.get(word);
    if (index !== undefined) {
      run.push(index);
      continue;
    }
    if (run.length >= PHRASE_LENGTHS[0]! && runPasses(run)) return true;
    run = [];
  }
  return false;
}
