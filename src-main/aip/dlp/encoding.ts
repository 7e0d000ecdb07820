import RE2 from 're2';

/*
 * detect_encoding (§3.6): secrets smuggled as base64 or hex.
 *
 * A *run* is a maximal stretch of at least MIN_RUN characters from the base64 alphabet (standard
 * `+/` and URL-safe `-_`, so hex digits too), optionally followed by up to two `=`. Runs never
 * contain `\n`, so the scanner can look for them over a whole joined batch. Each run is decoded
 *   - as hex, when it is entirely hex digits (after an optional `0x`), dropping a trailing odd nibble;
 *   - as base64 from the start of the run and from just after each `/ + - _` inside it (see
 *     decodeRun), until one decodes to text (start only for fields that are known base64
 *     payloads, MCP `data` / `blob`).
 * Decoded bytes count as *text* when at most 25% of them are malformed UTF-8, C0 controls other
 * than tab/LF/CR, or DEL (looksLikeText). Binary (images, sha256 digests, random ids) is never
 * scanned, so hashes and ordinary tokens are not redacted by accident. Decoding is one
 * level deep here (base64 inside base64 is not unwrapped); the normalised views of
 * aip/detect/normalize.ts reuse these decoders to unwrap nested layers, bounded in depth and size.
 */

/** The shortest run decoded (also normalize.ts's pre-check). */
export const MIN_RUN = 16;
const MAX_BAD_FRACTION = 0.25;

const RUN_REGEX = new RE2(`[A-Za-z0-9+/_-]{${MIN_RUN},}={0,2}`, 'gu');

export interface Run {
  start: number;
  end: number;
}

/** Every run in `text`, as UTF-16 ranges. */
export function findRuns(text: string): Run[] {
  // One native call for all runs, then locate them with indexOf. Exact for this regex: runs are
  // found left to right, and an earlier occurrence of a run's text after the previous run would
  // be 16+ alphabet characters, i.e. itself a run the leftmost search would have returned first.
  // (4x faster than an exec() per run on hash-heavy text.)
  const found = RUN_REGEX.match(text);
  if (found === null) return [];
  const runs: Run[] = [];
  let from = 0;
  for (const run of found) {
    const start = text.indexOf(run, from);
    if (start < 0) break;
    runs.push({ start, end: start + run.length });
    from = start + run.length;
  }
  return runs;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function hexBody(run: string): string | null {
  const body = run.length > 2 && run.charCodeAt(0) === 0x30 && (run.charCodeAt(1) | 0x20) === 0x78 ? run.slice(2) : run;
  if (body.length < MIN_RUN) return null;
  for (let i = 0; i < body.length; i += 1) if (!isHexDigit(body.charCodeAt(i))) return null;
  return body.length % 2 === 0 ? body : body.slice(0, -1);
}

/**
 * Whether `bytes` look like text: at most 25% of them are C0 controls other than tab/LF/CR, DEL,
 * or bytes that are not part of a well-formed UTF-8 sequence. Checked on the bytes (no string is
 * built for binary), stopping as soon as the answer is no.
 */
export function looksLikeText(bytes: Buffer): boolean {
  const n = bytes.length;
  if (n === 0) return false;
  const allowed = n * MAX_BAD_FRACTION;
  let bad = 0;
  let i = 0;
  while (i < n) {
    const c = bytes[i]!;
    if (c < 0x80) {
      if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) bad += 1;
      i += 1;
    } else {
      const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
      let ok = need > 0 && i + need < n;
      for (let k = 1; ok && k <= need; k += 1) ok = (bytes[i + k]! & 0xc0) === 0x80;
      if (ok) i += need + 1;
      else {
        bad += 1;
        i += 1;
      }
    }
    if (bad > allowed) return false;
  }
  return true;
}

function isSeparator(c: number): boolean {
  return c === 0x2f || c === 0x2b || c === 0x2d || c === 0x5f; // / + - _
}

/** The text of a run decoded as hex (all hex digits after an optional `0x`), or null when it is not hex or not text. */
export function decodeHexRun(run: string): string | null {
  const hex = hexBody(run);
  if (hex === null) return null;
  const bytes = Buffer.from(hex, 'hex');
  return looksLikeText(bytes) ? bytes.toString('utf8') : null;
}

/**
 * A run decoded as base64: `skip` is how many leading characters were left out (a prefix before
 * a separator, see decodeRun), `text` the decoded text; null when no start yields text.
 */
export function decodeBase64Run(run: string, alignedBase64Only = false): { skip: number; text: string } | null {
  let end = run.length;
  while (end > 0 && run.charCodeAt(end - 1) === 0x3d) end -= 1;
  let tried = 0;
  for (let start = 0; end - start >= MIN_RUN; start += 1) {
    if (start > 0) {
      if (alignedBase64Only) break;
      if (!isSeparator(run.charCodeAt(start - 1))) continue;
    }
    const alignment = 1 << (start % 4);
    if ((tried & alignment) !== 0) continue;
    tried |= alignment;
    const bytes = Buffer.from(run.slice(start, end), 'base64');
    if (looksLikeText(bytes)) return { skip: start, text: bytes.toString('utf8') };
    if (tried === 0b1111) break;
  }
  return null;
}

/**
 * The text decodings of one run (zero, one or two: hex and base64 are both tried).
 *
 * Base64 is decoded from the start of the run and, unless `alignedBase64Only`, also from just
 * after each `/`, `+`, `-` or `_` inside it (at most one start per alignment mod 4), so a payload
 * glued to a path or identifier (`/v1/QUtJ…`, `secret_QUtJ…`) still decodes; the first start
 * that yields text wins.
 */
export function decodeRun(run: string, alignedBase64Only = false): string[] {
  const out: string[] = [];
  const hex = decodeHexRun(run);
  if (hex !== null) out.push(hex);
  const base64 = decodeBase64Run(run, alignedBase64Only);
  if (base64 !== null) out.push(base64.text);
  return out;
}
