/**
 * Token counting of spec 002 §5.13: a heuristic, with no tokenizer and no network, used to pre-count
 * context items and to size every prompt. The error of the estimate is absorbed by the 20%
 * headroom every context profile keeps (§3.5), so it must only be stable, not exact.
 */

export interface TokenCounter {
  /** The estimated number of tokens of `text`. */
  count(text: string): number;
}

/** §5.13: `int(len(text) / 3.5)`. */
export const CHARS_PER_TOKEN = 3.5;

// Without the `u` flag, so that each half of a pair is seen as the UTF-16 unit it is.
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;
const SURROGATE_PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * Characters as the spec's Python counts them (`len(text)`: code points). A JavaScript string's
 * `length` counts UTF-16 units, which would count each emoji or CJK extension character twice.
 * An unpaired surrogate counts as one, as it does in Python. The first test is nearly free on
 * text V8 stores one byte per character (no surrogate can be in it), which most prompts are.
 */
export function codePointLength(text: string): number {
  if (!HIGH_SURROGATE.test(text)) return text.length;
  return text.length - (text.match(SURROGATE_PAIRS)?.length ?? 0);
}

/** §5.13's counter: characters ÷ 3.5, rounded towards zero. */
export class HeuristicTokenCounter implements TokenCounter {
  count(text: string): number {
    return Math.trunc(codePointLength(text) / CHARS_PER_TOKEN);
  }
}
