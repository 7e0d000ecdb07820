import { mayBeDisguised, runDecodes, textViews } from '../detect/normalize.js';
import { findRuns } from './encoding.js';
import type { PatternView, Span } from './patterns.js';

/*
 * x-silas-normalize: what DLP adds to a scan so that disguised secrets are found
 * (docs/threat-detection.md "Evasion").
 *
 * Views. A string that may be disguised (non-ASCII, a %XX escape, or a base64/hex run that decodes
 * to text) is also matched in its normalised views (aip/detect/normalize.ts: folded, URL-, base64-
 * and hex-decoded, bounded); a match in a view redacts the span of the original it came from, so
 * the usual `[REDACTED:<name>]` replaces what was written (a whole encoded run for a decoded one).
 * Which strings qualify is decided per batch: the character check is a JavaScript loop per string,
 * and the runs are found once over the joined batch, as detect_encoding does.
 *
 * Split values. The string values of one message (not keys, not numbers, not known base64
 * payloads), each at most JOIN_VALUE_MAX units, are concatenated in document order with nothing
 * between them and matched once more, so `"AKIAIOSFODNN"` + `"7EXAMPLE"` reads as the key it is.
 * Nothing between, not a space: an attacker splits a secret's characters, which plain
 * concatenation restores, while a space would turn neighbouring ordinary values into the shapes of
 * numbers written with spaces (phones, card numbers). A match counts only when it crosses from one
 * value into another and no part of it is already a match of the same pattern in its own value
 * (a greedy pattern running on into the next value, such as an email followed by a word, is not a
 * split secret); each value's part is redacted. A value too long to join breaks the sequence; the
 * joined text is at most JOIN_TOTAL_MAX units and its views are looked at up to JOIN_VIEW_MAX.
 */

export const JOIN_VALUE_MAX = 4096;
export const JOIN_TOTAL_MAX = 1024 * 1024;
const JOIN_VIEW_MAX = 64 * 1024;

/** Matches in the views of `text` beyond the text itself, as spans of `text`. */
export function viewSpans(view: PatternView, text: string, out: Span[]): void {
  // The whole string: max_scan_size already bounds what reaches here.
  const { views } = textViews(text, { maxInput: text.length });
  for (let v = 1; v < views.length; v += 1) {
    const current = views[v]!;
    const candidates = view.candidates(current.text);
    if (candidates.length === 0) continue;
    for (const span of view.spans(current.text, candidates)) {
      const { start, end } = current.toOriginal(span.start, span.end);
      if (end > start) out.push({ start, end, pattern: span.pattern });
    }
  }
}

/** Indexes of the batch's strings that may be disguised; `joined` is `texts` joined with `\n`. */
export function disguisedIndexes(texts: readonly string[], joined: string): number[] {
  const flagged = new Uint8Array(texts.length);
  for (let i = 0; i < texts.length; i += 1) if (mayBeDisguised(texts[i]!, false)) flagged[i] = 1;
  const runs = findRuns(joined);
  if (runs.length > 0) {
    let index = 0;
    let next = texts.length > 1 ? texts[0]!.length + 1 : Infinity;
    for (const run of runs) {
      // Runs come in ascending order and never cross the `\n` separators.
      while (run.start >= next) {
        index += 1;
        next += texts[index]!.length + 1;
      }
      if (flagged[index] === 1) continue;
      if (runDecodes(joined.slice(run.start, run.end))) flagged[index] = 1;
    }
  }
  const out: number[] = [];
  for (let i = 0; i < texts.length; i += 1) if (flagged[i] === 1) out.push(i);
  return out;
}

/** One string value in the joined sequence: its text, its group (values of one group were adjacent), its own spans. */
export interface JoinedValue {
  text: string;
  group: number;
  own: readonly Span[] | undefined;
}

/**
 * The parts of matches that cross values of one group in the joined text, per value index
 * (parallel to `values`; undefined where none).
 */
export function joinedSpans(view: PatternView, values: readonly JoinedValue[]): (Span[] | undefined)[] {
  const starts: number[] = [];
  const parts: string[] = [];
  let offset = 0;
  values.forEach((value, k) => {
    // A group break is a `\n`, so no match is read across values that were not adjacent.
    if (k > 0 && values[k - 1]!.group !== value.group) {
      parts.push('\n');
      offset += 1;
    }
    starts.push(offset);
    parts.push(value.text);
    offset += value.text.length;
  });
  const joined = parts.join('');
  const found = view.spans(joined, view.candidates(joined));
  if (joined.length <= JOIN_VIEW_MAX && mayBeDisguised(joined)) viewSpans(view, joined, found);

  const out: (Span[] | undefined)[] = new Array<Span[] | undefined>(values.length);
  const valueAt = (pos: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  for (const span of found) {
    const first = valueAt(span.start);
    const last = valueAt(span.end - 1);
    if (first === last || values[first]!.group !== values[last]!.group) continue;
    const pieces: { k: number; start: number; end: number }[] = [];
    let own = false;
    for (let k = first; k <= last && !own; k += 1) {
      const base = starts[k]!;
      const start = Math.max(span.start, base) - base;
      const end = Math.min(span.end, base + values[k]!.text.length) - base;
      if (end <= start) continue;
      own = values[k]!.own?.some((s) => s.pattern === span.pattern && s.start < end && start < s.end) ?? false;
      pieces.push({ k, start, end });
    }
    if (own) continue;
    for (const piece of pieces) (out[piece.k] ??= []).push({ start: piece.start, end: piece.end, pattern: span.pattern });
  }
  return out;
}
