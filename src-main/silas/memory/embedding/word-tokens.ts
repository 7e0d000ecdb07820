/*
 * The words of a text as the local embedder looks them up. The same words as the keyword search
 * (store/repositories/fts-query.ts `queryWords`, the unicode61 tokenizer with `tokenchars '_-'`):
 * letters, digits, marks, `_` and `-`, lowercased and without diacritics (unicode61 removes them
 * too, and the table's vocabulary is ASCII: "café" is found as "cafe"), blobs over 200 characters
 * left out. Unlike the search, every occurrence counts (a word said three times weighs three
 * times) and there is no cap on the number of words: a long memory is embedded whole.
 */

const WORD = /[\p{L}\p{N}\p{M}\p{Co}_-]+/gu;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const MAX_WORD_CHARS = 200;
const NOT_ASCII = /\P{ASCII}/u;
const MARKS = /\p{M}+/gu;

/** Each searchable word of `text`, lowercased, in order, repeats included; lazily, so a long text can be taken in slices. */
export function* wordsOf(text: string): Generator<string> {
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (word.length > MAX_WORD_CHARS || !HAS_LETTER_OR_DIGIT.test(word)) continue;
    const lower = word.toLowerCase();
    yield NOT_ASCII.test(lower) ? lower.normalize('NFKD').replace(MARKS, '') : lower;
  }
}

// Inflections tried, in order, for a word the table does not hold: plural and verb endings.
// Only for a missing word, so "news" or "during" (which the table holds) are never cut.
const SUFFIXES: readonly (readonly [string, string])[] = [
  ['ies', 'y'],
  ['es', ''],
  ['s', ''],
  ['ing', ''],
  ['ing', 'e'],
  ['ed', ''],
  ['ed', 'e'],
  ['ly', ''],
];

/**
 * Where the table has no entry for `word`, the forms to try instead, best first: the word without
 * an inflection ("indentations" → "indentation"), and for a compound joined by `-` or `_` its
 * parts ("memory_search" → "memory", "search"). Each part found counts as a word of its own.
 */
export function fallbackForms(word: string, has: (form: string) => boolean): string[] {
  if (/[-_]/.test(word)) {
    return word.split(/[-_]+/).flatMap((part) => {
      if (part === '' || !HAS_LETTER_OR_DIGIT.test(part)) return [];
      if (has(part)) return [part];
      const base = stem(part, has);
      return base === null ? [] : [base];
    });
  }
  const base = stem(word, has);
  return base === null ? [] : [base];
}

function stem(word: string, has: (form: string) => boolean): string | null {
  for (const [suffix, replacement] of SUFFIXES) {
    // A stem of at least three letters: "is" is not "i", "bed" is not "b".
    if (word.length - suffix.length < 3 || !word.endsWith(suffix)) continue;
    const form = word.slice(0, -suffix.length) + replacement;
    if (has(form)) return form;
  }
  return null;
}
