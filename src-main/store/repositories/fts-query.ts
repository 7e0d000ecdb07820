/**
 * Turns untrusted text (a person's message, an agent's `memory_search` query) into an FTS5 MATCH
 * expression whose meaning is fixed: "any of these words", ranked by bm25. The text never
 * contributes syntax. Every word becomes an FTS5 string (`"word"`), inside which `OR`, `NOT`,
 * `NEAR`, `*`, `^`, `:` and parentheses are plain characters handed to the tokenizer; the
 * characters that would be syntax outside a string are separators here, so they never reach the
 * expression at all. A prefix query (`se*`) would widen a search to every word it starts, and a
 * column filter would narrow or redirect it: neither can be written.
 */

/** Words the tokenizer (`unicode61`, `tokenchars '_-'`) keeps together: letters, digits, marks, `_`, `-`. */
const WORD = /[\p{L}\p{N}\p{M}\p{Co}_-]+/gu;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** More distinct words cost lookups without changing which memories come first. */
export const MAX_QUERY_TERMS = 32;
/** A "word" longer than this is a blob (base64, a hash dump), not something a person recalls by. */
const MAX_TERM_CHARS = 200;

/** The distinct searchable words of `text`, case-folded (as unicode61 folds them), in order. */
export function queryWords(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (word.length > MAX_TERM_CHARS || !HAS_LETTER_OR_DIGIT.test(word)) continue;
    seen.add(word.toLowerCase());
    if (seen.size === MAX_QUERY_TERMS) break;
  }
  return [...seen];
}

/** `"a" OR "b"`. The word class admits no `"`; doubling it anyway keeps the string closed if the class changes. */
export function anyOf(words: readonly string[]): string {
  return words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' OR ');
}

/** The MATCH expression for every word of `text`, or null when it holds none. */
export function ftsAnyWordQuery(text: string): string | null {
  const words = queryWords(text);
  return words.length === 0 ? null : anyOf(words);
}

/** A query word and the number of indexed documents holding it (its stem). */
export interface TermStat {
  word: string;
  df: number;
}

export interface TermPlan {
  /** Ranked by bm25. Empty when even the rarest word is in more documents than the budget. */
  ranked: string[];
  /**
   * Every word found anywhere, when `ranked` left some out: the caller fills the rest of its
   * results with the scope's newest memories holding any of them. Which words are left out depends
   * on counts over all scopes; without this, a scope would find fewer of its own memories because
   * another scope holds a word of its query.
   */
  recent: string[] | null;
}

/**
 * Which words to rank by bm25, so that a search reads at most about `budget` postings (FTS5's
 * bm25 scans each word's whole doclist once for its IDF, then scores every matching document:
 * about a microsecond per posting). A word found in no document is left out. The rest are taken
 * rarest first, as bm25 weighs them, while their document counts fit the budget; a word in half
 * the documents or more is never taken, because bm25 floors its IDF to nearly zero: it would add
 * cost and matches that rank last, not ranking. When even the rarest word is over the budget,
 * nothing is ranked and the newest matches are all there is.
 */
export function chooseTerms(stats: readonly TermStat[], totalDocs: number, budget: number): TermPlan | null {
  const present = stats.filter((term) => term.df > 0).sort((a, b) => a.df - b.df);
  if (present.length === 0) return null;
  const all = present.map((term) => term.word);
  const ranked: string[] = [];
  let postings = 0;
  for (const [index, term] of present.entries()) {
    // The rarest word may be common in a small store (three memories, all about "auth"): it is still the query.
    if ((index > 0 && term.df * 2 >= totalDocs) || postings + term.df > budget) continue;
    ranked.push(term.word);
    postings += term.df;
  }
  return { ranked, recent: ranked.length < all.length ? all : null };
}
