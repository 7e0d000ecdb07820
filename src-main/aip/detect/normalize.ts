import { decodeBase64Run, decodeHexRun, findRuns, MIN_RUN as SHORTEST_RUN, type Run } from '../dlp/encoding.js';
import { folded } from './fold.js';
import { SegmentMap, View, ViewBuilder, type TextView } from './text-map.js';

export type { TextView } from './text-map.js';
export { foldText } from './fold.js';

/*
 * Normalised views of untrusted text, so DLP and the detectors see through disguises: the same
 * words written with fullwidth or Cyrillic letters, split by invisible characters, percent-encoded
 * (once or several times), or packed in base64 or hex runs.
 *
 * A view is the whole text with one more layer undone than its parent: `fold` (NFKC per code
 * point, invisible and bidi characters dropped, common confusables mapped to Latin), `url` (one
 * round of %XX decoding; `+` stays `+`, invalid UTF-8 stays as written), `base64` or `hex` (every
 * run that decodes to text replaced by its text, in place). Views form a tree, built breadth first
 * and de-duplicated by text, so shallow views come first and nested encodings unwrap layer by layer.
 *
 * Every view keeps a map back to the input, so a match can be redacted where it was written:
 * exact character by character where the layer copies or replaces one unit by one; a unit that
 * became several (or none) maps to the whole original stretch; a decoded run maps to the run.
 *
 * Bounded for hostile input: only the first maxInput units are looked at, decoding layers stack at
 * most maxDepth deep, decoded text (not copied text) is at most maxDecodedTotal units in all, at most
 * maxViews views, and fold output at most about twice its input. Whatever a bound stopped is
 * reported by `truncated`; nothing here throws for any string.
 */

export interface NormalizeLimits {
  /** UTF-16 units of input looked at; default 1 MiB (the rest is passed over, reported by `truncated`). */
  maxInput: number;
  /** Decoding layers stacked (url inside base64 inside url…); default 3. Fold is not a decoding layer. */
  maxDepth: number;
  /** Total UTF-16 units produced by decoding (decoded %XX groups and runs) across all views of one input; default 256 KiB. */
  maxDecodedTotal: number;
  /** Views returned, the input included; default 32. */
  maxViews: number;
}

/** A local copy: an imported binding is read through a getter, too slow for a per-character loop. */
const MIN_RUN = SHORTEST_RUN;

export const DEFAULT_NORMALIZE_LIMITS: Readonly<NormalizeLimits> = { maxInput: 1024 * 1024, maxDepth: 3, maxDecodedTotal: 256 * 1024, maxViews: 32 };

// ---- decoding layers --------------------------------------------------------------------------

class Budget {
  exceeded = false;
  constructor(public left: number) {}
  /** Whether `units` more decoded units fit; takes them when they do. */
  take(units: number): boolean {
    if (units > this.left) {
      this.exceeded = true;
      return false;
    }
    this.left -= units;
    return true;
  }
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** The code point of the well-formed UTF-8 sequence at bytes[k] and its length, or length 0. */
function utf8At(bytes: number[], k: number): [number, number] {
  const b0 = bytes[k]!;
  if (b0 < 0x80) return [b0, 1];
  const need = b0 >= 0xc2 && b0 <= 0xdf ? 1 : b0 >= 0xe0 && b0 <= 0xef ? 2 : b0 >= 0xf0 && b0 <= 0xf4 ? 3 : 0;
  if (need === 0 || k + need >= bytes.length) return [0, 0];
  let cp = b0 & (0x3f >> need);
  for (let j = 1; j <= need; j += 1) {
    const next = bytes[k + j]!;
    if ((next & 0xc0) !== 0x80) return [0, 0];
    cp = (cp << 6) | (next & 0x3f);
  }
  const min = need === 1 ? 0x80 : need === 2 ? 0x800 : 0x10000;
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return [0, 0];
  return [cp, need + 1];
}

/** Whether `text` holds a %XX escape. */
function hasPercentEscape(text: string): boolean {
  for (let i = text.indexOf('%'); i >= 0 && i + 2 < text.length; i = text.indexOf('%', i + 1)) {
    if (hexValue(text.charCodeAt(i + 1)) >= 0 && hexValue(text.charCodeAt(i + 2)) >= 0) return true;
  }
  return false;
}

/** One round of percent-decoding, or null when nothing decodes. */
function urlDecoded(text: string, budget: Budget): { text: string; map: SegmentMap } | null {
  let i = text.indexOf('%');
  if (i < 0) return null;
  const b = new ViewBuilder(text);
  const bytes: number[] = [];
  let from = 0;
  let changed = false;
  while (i >= 0) {
    let j = i;
    bytes.length = 0;
    while (j + 2 < text.length && text.charCodeAt(j) === 0x25) {
      const high = hexValue(text.charCodeAt(j + 1));
      const low = hexValue(text.charCodeAt(j + 2));
      if (high < 0 || low < 0) break;
      bytes.push(high * 16 + low);
      j += 3;
    }
    if (bytes.length === 0) {
      i = text.indexOf('%', i + 1);
      continue;
    }
    b.copy(from, i);
    for (let k = 0; k < bytes.length; ) {
      const [cp, len] = utf8At(bytes, k);
      const at = i + 3 * k;
      if (len === 0 || !budget.take(cp > 0xffff ? 2 : 1)) {
        b.copy(at, at + 3);
        k += 1;
        continue;
      }
      b.put(String.fromCodePoint(cp), at, at + 3 * len);
      changed = true;
      k += len;
    }
    from = j;
    i = text.indexOf('%', j);
  }
  if (!changed) return null;
  b.copy(from, text.length);
  return b.finish();
}

/**
 * Decoded text that someone wrote: replacement and control characters (but tab and line breaks)
 * at most 1 in 32. looksLikeText alone (a quarter) lets about one random hex digest in a hundred
 * through, and each such run would cost a view of the whole text.
 */
function readsAsText(text: string): boolean {
  let bad = 0;
  const allowed = text.length >> 5;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0xfffd || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) {
      bad += 1;
      if (bad > allowed) return false;
    }
  }
  return true;
}

/** A run decoded as `kind` when it reads as text: the decoded text and how many leading characters it leaves out. */
function decodeRunAs(kind: 'base64' | 'hex', source: string): { skip: number; text: string } | null {
  if (kind === 'hex') {
    const text = decodeHexRun(source);
    return text !== null && readsAsText(text) ? { skip: 0, text } : null;
  }
  // A run of hex digits only is not taken for base64: text encoded in base64 practically never uses
  // just those 22 letters, while digests, ids and colours do, and every try costs a decode.
  if (isHexOnly(source)) return null;
  const decoded = decodeBase64Run(source);
  return decoded !== null && readsAsText(decoded.text) ? decoded : null;
}

function isHexOnly(source: string): boolean {
  for (let i = 0; i < source.length; i += 1) if (hexValue(source.charCodeAt(i)) < 0) return false;
  return true;
}

/** Whether a run (as findRuns finds them) decodes, as base64 or hex, to text: the views would differ. */
export function runDecodes(source: string): boolean {
  return decodeRunAs('hex', source) !== null || decodeRunAs('base64', source) !== null;
}

/** Every run of `kind` that decodes to text replaced by its text, or null when none does. */
function runsDecoded(text: string, runs: Run[], kind: 'base64' | 'hex', budget: Budget): { text: string; map: SegmentMap } | null {
  let b: ViewBuilder | null = null;
  let from = 0;
  for (const run of runs) {
    const units = run.end - run.start;
    // Decoded text is never longer than this, so a run that cannot fit is not even decoded.
    if ((kind === 'hex' ? units >> 1 : (units * 3) >> 2) > budget.left) {
      budget.exceeded = true;
      continue;
    }
    const decoded = decodeRunAs(kind, text.slice(run.start, run.end));
    if (decoded === null || !budget.take(decoded.text.length)) continue;
    b ??= new ViewBuilder(text);
    b.copy(from, run.start + decoded.skip);
    b.put(decoded.text, run.start + decoded.skip, run.end);
    from = run.end;
  }
  if (b === null) return null;
  b.copy(from, text.length);
  return b.finish();
}

/** Whether some run of `runs` decodes to text (a layer left undone at the depth bound). */
function anyRunDecodes(text: string, runs: Run[]): boolean {
  return runs.some((run) => runDecodes(text.slice(run.start, run.end)));
}

// ---- views ------------------------------------------------------------------------------------

/** The input itself first, then every different view, bounded by the limits; never throws. */
export function textViews(text: string, limits: Partial<NormalizeLimits> = {}): { views: TextView[]; truncated: boolean } {
  const { maxInput, maxDepth, maxDecodedTotal, maxViews } = { ...DEFAULT_NORMALIZE_LIMITS, ...limits };
  const input = new View(text, [], null, null);
  const views: View[] = [input];
  let truncated = false;
  let scope = input;
  if (text.length > maxInput) {
    truncated = true;
    const c = text.charCodeAt(maxInput - 1);
    const cut = maxInput > 0 && c >= 0xd800 && c <= 0xdbff ? maxInput - 1 : Math.max(maxInput, 0);
    scope = new View(text.slice(0, cut), [], null, null);
  }
  const budget = new Budget(maxDecodedTotal);
  const seen = new Set<string>([text, scope.text]);
  const queue: { view: View; depth: number }[] = [{ view: scope, depth: 0 }];

  const add = (parent: View, depth: number, layer: string, derived: { text: string; map: SegmentMap } | null): boolean => {
    if (derived === null || seen.has(derived.text)) return true;
    if (views.length >= maxViews) return false;
    seen.add(derived.text);
    const view = new View(derived.text, [...parent.layers, layer], derived.map, parent);
    views.push(view);
    queue.push({ view, depth: layer === 'fold' ? depth : depth + 1 });
    return true;
  };

  for (let q = 0; q < queue.length; q += 1) {
    const { view, depth } = queue[q]!;
    const last = view.layers[view.layers.length - 1];
    let more = true;
    if (last !== 'fold') {
      const fold = folded(view.text);
      if (fold?.capped === true) truncated = true;
      more = add(view, depth, 'fold', fold);
    }
    const runs = view.text.length >= MIN_RUN && hasEncodedRun(view.text) ? findRuns(view.text).filter((run) => encodedRun(view.text, run)) : [];
    if (depth >= maxDepth) {
      if (hasPercentEscape(view.text) || anyRunDecodes(view.text, runs)) truncated = true;
    } else {
      more = more && add(view, depth, 'url', urlDecoded(view.text, budget));
      if (runs.length > 0) {
        more = more && add(view, depth, 'base64', runsDecoded(view.text, runs, 'base64', budget));
        more = more && add(view, depth, 'hex', runsDecoded(view.text, runs, 'hex', budget));
      }
    }
    if (!more) {
      truncated = true;
      break;
    }
  }
  if (budget.exceeded) truncated = true;
  return { views, truncated };
}

/**
 * True when `text` could differ under any layer (non-ASCII, %XX, a base64/hex run ≥ 16 chars): the
 * fast pre-check. With `runs` false, runs are not looked for (a caller that finds them over a
 * larger batch at once).
 */
export function mayBeDisguised(text: string, runs = true): boolean {
  // Native passes first: a unit ≥ 0x80 (a lone surrogate included) makes the UTF-8 length differ,
  // and `%` is rare; a JavaScript loop per character would cost more than the detectors' RE2 pass.
  if (Buffer.byteLength(text, 'utf8') !== text.length || hasPercentEscape(text)) return true;
  return runs && hasEncodedRun(text);
}

/**
 * Whether `text` holds a run of MIN_RUN characters shaped like encoded text (encodedShape).
 * Every stretch of MIN_RUN characters covers exactly one position p with p % MIN_RUN ===
 * MIN_RUN - 1, so only those positions are looked at; the run around one that is a run character
 * is then measured whole. Ordinary text is mostly short words, so about one character in three is read.
 */
function hasEncodedRun(text: string): boolean {
  const n = text.length;
  for (let p = MIN_RUN - 1; p < n; ) {
    if (runChar(text.charCodeAt(p)) === 0) {
      p += MIN_RUN;
      continue;
    }
    let start = p;
    while (start > 0 && runChar(text.charCodeAt(start - 1)) !== 0) start -= 1;
    let end = p + 1;
    while (end < n && runChar(text.charCodeAt(end)) !== 0) end += 1;
    if (end - start >= MIN_RUN && encodedPrefix(text, start, end)) return true;
    // The next run starts after `end`; its first MIN_RUN characters cover end + MIN_RUN.
    p = end + MIN_RUN;
  }
  return false;
}

/** Whether some prefix of the run [start, end), MIN_RUN or longer, is shaped like encoded text. */
function encodedPrefix(text: string, start: number, end: number): boolean {
  let shape = 0;
  for (let i = start; i < end; i += 1) {
    shape |= runChar(text.charCodeAt(i));
    if (i - start + 1 >= MIN_RUN && encodedShape(shape)) return true;
  }
  return false;
}

function encodedRun(text: string, run: Run): boolean {
  let shape = 0;
  for (let i = run.start; i < run.end; i += 1) shape |= runChar(text.charCodeAt(i));
  return encodedShape(shape);
}

/** The RUN_CHAR bits of a UTF-16 unit; 0 for a character no run holds. */
function runChar(c: number): number {
  return c < 0x80 ? RUN_CHAR[c]! : 0;
}

// What a run character is, as bits: the pre-check asks whether a run could be encoded text at all.
const DIGIT = 1;
const UPPER = 2;
const LOWER = 4;
const PLUS = 8;
const SEPARATOR = 16;
const RUN_CHAR = new Uint8Array(0x80);
for (let c = 0x30; c <= 0x39; c += 1) RUN_CHAR[c] = DIGIT;
for (let c = 0x41; c <= 0x5a; c += 1) RUN_CHAR[c] = UPPER;
for (let c = 0x61; c <= 0x7a; c += 1) RUN_CHAR[c] = LOWER;
RUN_CHAR[0x2b] = PLUS;
for (const c of [0x2d, 0x2f, 0x5f]) RUN_CHAR[c] = SEPARATOR;

/**
 * Base64 and hex of text nearly always hold a digit or `+` (16 base64 characters without one:
 * about 1 in 15; 32 characters: 1 in 200), and a run of letters alone must mix cases and carry no
 * separator to be base64. So hyphenated words, slugs and paths (`case-insensitive`,
 * `src/components/list`) — most 16-character runs in ordinary text — are not taken for encodings
 * by the pre-check; textViews, when it runs, still tries every run.
 */
function encodedShape(shape: number): boolean {
  if ((shape & (DIGIT | PLUS)) !== 0) return true;
  return (shape & UPPER) !== 0 && (shape & LOWER) !== 0 && (shape & SEPARATOR) === 0;
}
