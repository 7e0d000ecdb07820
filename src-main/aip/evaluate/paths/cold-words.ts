/**
 * Cold plain words, so a long argument costs the matcher work in proportion to its length
 * (docs/protected-paths.md "Cost and file-system lookups"): most words of a long text —
 * identifiers, numbers, names like `f0.md` — can neither match a protected path lexically nor need
 * a filesystem lookup, and the protected-path matcher need not hash, store or join them at all.
 *
 * A word is "plain" when it is made of `[A-Za-z0-9_+.-]` only and does not start with `.`:
 * `expand` returns it unchanged, its only variant is itself without trailing dots, it holds no
 * separator (one segment) and is not a physical candidate (only whole values, words with a
 * separator and words starting with `~ . $ %` are looked up). It is "cold" when neither it nor
 * its dot-stripped variant can be a segment of any entry's compared form (see the matcher's
 * `hotSegments`). Under directories that are not themselves protected such a word cannot
 * match; the matcher skips it only when that holds for every directory it would be joined with
 * (see `ProtectedPathMatcher.words`).
 *
 * The hot test is a pre-filter on (length, first, last character), folded when the platform
 * folds case: a word that passes is treated as hot and takes the ordinary path, so the filter can
 * only cost speed, never a match.
 */

/** `[A-Za-z0-9_+.-]` by char code. */
const PLAIN = new Uint8Array(128);
for (let c = 0; c < 128; c += 1) {
  const ch = String.fromCharCode(c);
  PLAIN[c] = /[A-Za-z0-9_+.-]/.test(ch) ? 1 : 0;
}

/** What `NAIVE_SPLIT` (`[\s"'`|&;<>(){}[\],]+`) splits ASCII text on, by char code. */
const NAIVE_SEPARATOR = new Uint8Array(128);
for (const ch of ' \t\n\v\f\r"\'`|&;<>(){}[],') NAIVE_SEPARATOR[ch.charCodeAt(0)] = 1;

const DOT = 0x2e;
const MAX_KEYED_LENGTH = 1 << 16;

function foldCode(c: number, fold: boolean): number {
  return fold && c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

export class ColdWords {
  /** (length, first, last) of every hot segment that does not start with `.`. */
  private readonly keys = new Set<number>();

  /** `hot`: the matcher's hot segments, already folded when `fold`. */
  constructor(
    hot: ReadonlySet<string>,
    private readonly fold: boolean,
  ) {
    for (const seg of hot) {
      // A plain word never starts with `.`, and neither does its dot-stripped variant.
      if (seg === '' || seg.charCodeAt(0) === DOT) continue;
      this.keys.add(ColdWords.key(seg.length, seg.charCodeAt(0), seg.charCodeAt(seg.length - 1)));
    }
  }

  private static key(length: number, first: number, last: number): number {
    // Non-ASCII codes never reach here for plain words; hot segments may have them (then the
    // key simply never matches a plain word, which is exact: such a word cannot equal them).
    return Math.min(length, MAX_KEYED_LENGTH) * 0x1000000 + (first & 0xfff) * 0x1000 + (last & 0xfff);
  }

  /** `text.slice(a, b)` is plain and cold (see the file comment). */
  isColdPlain(text: string, a: number, b: number): boolean {
    if (b <= a || text.charCodeAt(a) === DOT) return false;
    for (let i = a; i < b; i += 1) {
      const c = text.charCodeAt(i);
      if (c >= 128 || PLAIN[c] === 0) return false;
    }
    return this.coldOnceChecked(text, a, b);
  }

  /** The hot test of a word already known to be plain. */
  private coldOnceChecked(text: string, a: number, b: number): boolean {
    let end = b;
    while (end > a && text.charCodeAt(end - 1) === DOT) end -= 1;
    return !this.mayBeHot(text, a, b) && (end === b || end === a || !this.mayBeHot(text, a, end));
  }

  private mayBeHot(text: string, a: number, b: number): boolean {
    return this.keys.has(ColdWords.key(b - a, foldCode(text.charCodeAt(a), this.fold), foldCode(text.charCodeAt(b - 1), this.fold)));
  }

  /**
   * The words `text.split(NAIVE_SPLIT)` would give, minus cold plain ones, each passed to `emit`
   * (the cold ones are never sliced out). ASCII text only: the caller splits other text itself
   * (`\s` then also means Unicode spaces). One pass: plainness is tracked as the word is read.
   */
  naiveWords(text: string, emit: (word: string) => void): void {
    const n = text.length;
    let start = -1;
    let plain = false;
    for (let i = 0; i <= n; i += 1) {
      const c = i === n ? 0x20 : text.charCodeAt(i);
      if (c < 128 && NAIVE_SEPARATOR[c] === 1) {
        if (start !== -1) {
          if (!plain || !this.coldOnceChecked(text, start, i)) emit(text.slice(start, i));
          start = -1;
        }
      } else if (start === -1) {
        start = i;
        plain = c < 128 && PLAIN[c] === 1 && c !== DOT;
      } else if (plain && (c >= 128 || PLAIN[c] === 0)) plain = false;
    }
  }
}
