import { GLOB } from './chars.js';

// Glob comparison of path segments: docs/protected-paths.md "How entries and candidates are
// compared". A candidate wildcard does not match a leading dot (as the shell reads it); an entry
// wildcard does (it protects more).

/**
 * True when candidate segments `c[ci…]` name `e[ei…]` or something inside it. Either side may
 * hold globs. `memo` is needed only when a `**` makes the search branch.
 */
export function prefixMatch(c: readonly string[], ci: number, e: readonly string[], ei: number, cGlob: boolean, eGlob: boolean, memo: Map<number, boolean> | null, anywhere = false): boolean {
  const id = ci * 65_536 + ei;
  const known = memo?.get(id);
  if (known !== undefined) return known;
  let result: boolean;
  if (ei === e.length) result = true;
  else if (eGlob && e[ei] === '**') result = prefixMatch(c, ci, e, ei + 1, cGlob, eGlob, memo, anywhere) || (ci < c.length && prefixMatch(c, ci + 1, e, ei, cGlob, eGlob, memo, anywhere));
  else if (ci === c.length) result = false;
  else if (cGlob && c[ci] === '**') result = prefixMatch(c, ci + 1, e, ei, cGlob, eGlob, memo, anywhere) || (!e[ei]!.startsWith('.') && !byName(e[ei]!, eGlob, anywhere) && prefixMatch(c, ci, e, ei + 1, cGlob, eGlob, memo, anywhere));
  else result = segmentMatch(c[ci]!, cGlob, e[ei]!, eGlob, anywhere) && prefixMatch(c, ci + 1, e, ei + 1, cGlob, eGlob, memo, anywhere);
  memo?.set(id, result);
  return result;
}

function segmentMatch(cand: string, cGlob: boolean, entry: string, eGlob: boolean, anywhere: boolean): boolean {
  if (cand === entry) return true;
  if (eGlob && GLOB.test(entry) && wildcard(entry, cand, false)) return true;
  if (cGlob && GLOB.test(cand) && wildcard(cand, entry, true) && !(namesAnything(cand) && byName(entry, eGlob, anywhere))) return true;
  return false;
}

// A segment of wildcards only (`*`, `**`, `?`) names any file, not a file by its name. Against an
// entry that protects files by name anywhere (`id_rsa`, `*.pem`, `.env.*`) it is not a match:
// otherwise every `*/*` (an HTTP Accept header), a cron step `*/5` or a MIME range `text/*` would
// be refused as a protected path. Against a folder of a path entry (`/home/*/.ssh`) it still is
// (docs/protected-paths.md "How entries and candidates are compared").
function namesAnything(segment: string): boolean {
  return segment.length > 0 && ONLY_WILDCARDS.test(segment);
}

/** An entry segment that protects files by name: any segment of an entry without a folder, or a glob with a literal part (`*.pem`). */
function byName(entry: string, eGlob: boolean, anywhere: boolean): boolean {
  return anywhere ? !namesAnything(entry) : eGlob && GLOB.test(entry) && !namesAnything(entry);
}

const ONLY_WILDCARDS = /^[*?]+$/;

/** Glob match of one segment: `*`, `?`, `[…]` (`!`/`^` negation, ranges). `dotRule`: a wildcard does not match a leading dot. */
export function wildcard(pattern: string, name: string, dotRule: boolean): boolean {
  if (dotRule && name.startsWith('.') && !pattern.startsWith('.')) return false;
  let p = 0;
  let n = 0;
  let starP = -1;
  let starN = 0;
  while (n < name.length) {
    const pc = pattern[p];
    if (pc === '*') {
      starP = p;
      starN = n;
      p += 1;
      continue;
    }
    if (pc !== undefined) {
      const step = matchOne(pattern, p, name[n]!);
      if (step > 0) {
        p += step;
        n += 1;
        continue;
      }
    }
    if (starP === -1) return false;
    p = starP + 1;
    starN += 1;
    n = starN;
  }
  while (pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/** Length of the pattern element at `p` when it matches `ch`, else 0. */
function matchOne(pattern: string, p: number, ch: string): number {
  const pc = pattern[p]!;
  if (pc === '?') return 1;
  if (pc !== '[') return pc === ch ? 1 : 0;
  let j = p + 1;
  const negate = pattern[j] === '!' || pattern[j] === '^';
  if (negate) j += 1;
  let matched = false;
  let first = true;
  while (j < pattern.length && (pattern[j] !== ']' || first)) {
    const lo = pattern[j]!;
    if (pattern[j + 1] === '-' && j + 2 < pattern.length && pattern[j + 2] !== ']') {
      const hi = pattern[j + 2]!;
      if (ch >= lo && ch <= hi) matched = true;
      j += 3;
    } else {
      if (ch === lo) matched = true;
      j += 1;
    }
    first = false;
  }
  if (j >= pattern.length) return pc === ch ? 1 : 0; // no closing bracket: a literal `[`
  return matched !== negate ? j - p + 1 : 0;
}
