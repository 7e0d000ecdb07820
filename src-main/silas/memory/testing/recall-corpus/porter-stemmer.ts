/*
 * The classic Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), as in his
 * reference C implementation, including its two published departures from the paper ("bli" →
 * "ble" and "logi" → "log" in step 2). It is the algorithm of the FTS5 `porter` tokenizer that
 * keyword recall indexes with (spec 002 §6.1), so two words this stemmer reduces to different
 * stems are two different terms to FTS5 as well: `porter-stemmer.test.ts` checks that on every
 * word of the recall corpus. Input is one lowercase word; words under three letters stay as they
 * are, as in FTS5.
 */

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];
const STEP3: ReadonlyArray<readonly [string, string]> = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
// Longest first where one ends another ("ement" before "ment" before "ent").
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

class Word {
  constructor(public b: string) {}

  /** Whether b[i] is a consonant: not a vowel, and `y` only when it follows a vowel or starts the word. */
  cons(i: number): boolean {
    const ch = this.b[i];
    if (ch === 'a' || ch === 'e' || ch === 'i' || ch === 'o' || ch === 'u') return false;
    if (ch === 'y') return i === 0 ? true : !this.cons(i - 1);
    return true;
  }

  /** m, the number of vowel-consonant sequences in b[0, end). */
  measure(end: number): number {
    let n = 0;
    let i = 0;
    while (i < end && this.cons(i)) i += 1;
    while (i < end) {
      while (i < end && !this.cons(i)) i += 1;
      if (i >= end) break;
      while (i < end && this.cons(i)) i += 1;
      n += 1;
    }
    return n;
  }

  hasVowel(end: number): boolean {
    for (let i = 0; i < end; i += 1) if (!this.cons(i)) return true;
    return false;
  }

  /** Whether b ends in a double consonant at index j. */
  doubleConsonant(j: number): boolean {
    return j >= 1 && this.b[j] === this.b[j - 1] && this.cons(j);
  }

  /** consonant-vowel-consonant ending at i, the last not w, x or y ("hop", not "snow"). */
  cvc(i: number): boolean {
    if (i < 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const ch = this.b[i];
    return ch !== 'w' && ch !== 'x' && ch !== 'y';
  }

  /** The length of b without `suffix`, or -1 when b does not end in it. */
  stemOf(suffix: string): number {
    return this.b.endsWith(suffix) ? this.b.length - suffix.length : -1;
  }

  replace(stemLength: number, by: string): void {
    this.b = this.b.slice(0, stemLength) + by;
  }
}

function step1ab(w: Word): void {
  if (w.b.endsWith('s')) {
    if (w.b.endsWith('sses')) w.replace(w.b.length - 2, '');
    else if (w.b.endsWith('ies')) w.replace(w.b.length - 3, 'i');
    else if (w.b[w.b.length - 2] !== 's') w.replace(w.b.length - 1, '');
  }
  const eed = w.stemOf('eed');
  if (eed >= 0) {
    if (w.measure(eed) > 0) w.replace(w.b.length - 1, '');
    return;
  }
  let stem = w.stemOf('ed');
  if (stem < 0) stem = w.stemOf('ing');
  if (stem < 0 || !w.hasVowel(stem)) return;
  w.replace(stem, '');
  if (w.b.endsWith('at') || w.b.endsWith('bl') || w.b.endsWith('iz')) w.replace(w.b.length, 'e');
  else if (w.doubleConsonant(w.b.length - 1)) {
    const ch = w.b[w.b.length - 1];
    if (ch !== 'l' && ch !== 's' && ch !== 'z') w.replace(w.b.length - 1, '');
  } else if (w.measure(w.b.length) === 1 && w.cvc(w.b.length - 1)) w.replace(w.b.length, 'e');
}

function step1c(w: Word): void {
  const stem = w.stemOf('y');
  if (stem >= 0 && w.hasVowel(stem)) w.replace(stem, 'i');
}

/** Steps 2 and 3: the first matching suffix is replaced when what precedes it has m > 0. */
function replaceSuffix(w: Word, table: ReadonlyArray<readonly [string, string]>): void {
  for (const [suffix, by] of table) {
    const stem = w.stemOf(suffix);
    if (stem < 0) continue;
    if (w.measure(stem) > 0) w.replace(stem, by);
    return;
  }
}

function step4(w: Word): void {
  // The reference implementation tries suffixes by their second-to-last letter; among those that
  // can match the same word, the longest comes first in STEP4's order.
  const candidates = STEP4.filter((suffix) => w.b.endsWith(suffix)).sort((a, b) => b.length - a.length);
  const suffix = candidates[0];
  if (suffix === undefined) return;
  const stem = w.b.length - suffix.length;
  if (suffix === 'ion' && !(stem >= 1 && (w.b[stem - 1] === 's' || w.b[stem - 1] === 't'))) return;
  if (w.measure(stem) > 1) w.replace(stem, '');
}

function step5(w: Word): void {
  if (w.b.endsWith('e')) {
    const stem = w.b.length - 1;
    const m = w.measure(stem);
    if (m > 1 || (m === 1 && !w.cvc(stem - 1))) w.replace(stem, '');
  }
  if (w.b.endsWith('l') && w.doubleConsonant(w.b.length - 1) && w.measure(w.b.length) > 1) w.replace(w.b.length - 1, '');
}

/** The Porter stem of one lowercase word. */
export function porterStem(word: string): string {
  if (word.length < 3) return word;
  const w = new Word(word);
  step1ab(w);
  if (w.b.length > 1) {
    step1c(w);
    replaceSuffix(w, STEP2);
    replaceSuffix(w, STEP3);
    step4(w);
    step5(w);
  }
  return w.b;
}
