import { expandHome } from './candidates.js';
import { CURRENT_DIR, GLOB, NON_ASCII } from './chars.js';
import { prefixMatch, wildcard } from './glob.js';
import { LimitReached, type Scan, type Setup } from './scan.js';
import type { Entry, Key, ProtectedPathSource } from './types.js';

// The entries and how a path is compared with them: docs/protected-paths.md "How entries and
// candidates are compared".


/** An entry as written in the policy (or protected automatically); null when it is empty. Absolute `keys` are filled by `refresh`. */
export function compileEntry(m: Setup, written: string, source: ProtectedPathSource): Entry | null {
  let t = written.trim();
  while (/[\\/]\*\*?$/.test(t) && t.length > 2) t = t.replace(/[\\/]\*\*?$/, '');
  if (t === '') return null;
  const expanded = expandHome(m, t);
  const normal = m.path.normalize(expanded).replace(/\\/g, '/');
  // A relative entry means "that name anywhere"; one of `alwaysProtect`, or one leaving the
  // working directory, is a path (docs/protected-paths.md "How entries and candidates are compared").
  const anchored = m.path.isAbsolute(expanded) || source === 'auto' || normal === '.' || normal === '..' || normal.startsWith('../');
  if (anchored) {
    const abs = m.path.resolve(m.cwd, expanded);
    return { written, source, anywhere: false, glob: GLOB.test(abs), keys: [], segs: [], needle: '', expanded: abs };
  }
  const folded = foldText(m, normal.replace(/^(?:\.\/)+/, ''));
  const segs = folded.split('/').filter((s) => s !== '' && s !== '.');
  const canon = m.win ? segs.map(winSegment) : segs;
  return { written, source, anywhere: true, glob: GLOB.test(normal), keys: [], segs: canon, needle: `/${canon.join('/')}/`, expanded: normal };
}

/** Segments of a comparison key, for glob matching: the root is the first (empty on POSIX). */
export function keySegments(key: string): string[] {
  if (key === '/') return [''];
  return (key.endsWith('/') ? key.slice(0, -1) : key).split('/');
}

export function makeKey(m: Setup, abs: string): Key {
  let key = foldText(m, m.win ? abs.replace(/\\/g, '/') : abs);
  if (m.win) {
    const segs = key.split('/');
    for (let i = 1; i < segs.length; i += 1) segs[i] = winSegment(segs[i]!);
    key = segs.join('/');
  }
  if (key.length > 1 && key.endsWith('/') && !(m.win && key.length === 3 && key[1] === ':')) key = key.slice(0, -1);
  const prefix = key.endsWith('/') ? key : `${key}/`;
  return { key, prefix };
}

/** NFC, and lower case where the platform folds case (docs/protected-paths.md "How entries and candidates are compared"). */
function foldText(m: Setup, s: string): string {
  const nfc = NON_ASCII.test(s) ? s.normalize('NFC') : s;
  return m.fold ? nfc.toLowerCase() : nfc;
}

/** Windows ignores a trailing dot or space and names the default stream `::$DATA`. */
function winSegment(seg: string): string {
  if (/^[a-z]:$/i.test(seg)) return seg;
  const colon = seg.indexOf(':');
  const base = colon === -1 ? seg : seg.slice(0, colon);
  const trimmed = base.replace(/[. ]+$/, '');
  return trimmed === '' ? base : trimmed;
}

/** The first entry that `k` is, or is inside; `glob`: the candidate holds glob characters. */
export function matchKey(m: Setup, k: Key, glob: boolean): Entry | null {
  // A glob comparison needs the key's segments: split once for every entry, not once per entry
  // (a whole multi-line value is one long key). Only a `**` segment makes `prefixMatch` branch
  // (and revisit pairs): without one each pair is visited once and no memo is allocated.
  let split: string[] | null = null;
  let starred = false;
  const segments = (): string[] => {
    if (split === null) {
      split = keySegments(k.key);
      starred = glob && split.includes('**');
    }
    return split;
  };
  for (const entry of m.entries) {
    if (entry.anywhere) {
      if (!glob && !entry.glob) {
        if (k.prefix.includes(entry.needle)) return entry;
      } else {
        const segs = segments();
        const branches = starred || (entry.glob && entry.segs.includes('**'));
        for (let start = 0; start < segs.length; start += 1) {
          if (prefixMatch(segs, start, entry.segs, 0, glob, entry.glob, branches ? new Map() : null, true)) return entry;
        }
      }
      continue;
    }
    for (const p of entry.keys) {
      if (!glob && !entry.glob) {
        if (k.key === p.key || k.key.startsWith(p.prefix)) return entry;
      } else {
        const segs = segments();
        const branches = starred || (entry.glob && p.segs.includes('**'));
        if (prefixMatch(segs, 0, p.segs, 0, glob, entry.glob, branches ? new Map() : null)) return entry;
      }
    }
  }
  return null;
}

/** `name`/`names`: `abs` is `base/name` for a base with a `namesUnder` table. Each path is compared once per call. */
export function checkLexical(scan: Scan, abs: string, name?: string, names?: Set<string>): { entry: Entry; path: string } | null {
  if (scan.lexSeen.has(abs)) return null;
  scan.lexSeen.add(abs);
  scan.comparisons -= 1;
  if (scan.comparisons < 0) throw new LimitReached('too_large', `more than ${scan.m.limits.maxComparisons} candidate paths in the arguments`);
  if (names !== undefined && !names.has(name!)) return null;
  const entry = matchKey(scan.m, makeKey(scan.m, abs), GLOB.test(abs));
  return entry ? { entry, path: abs } : null;
}

/** A base or scope directory that is not itself protected (else every word under it matches). */
export function openDir(scan: Scan, dir: string): boolean {
  let open = scan.openDirs.get(dir);
  if (open === undefined) {
    open = matchKey(scan.m, makeKey(scan.m, dir), GLOB.test(dir)) === null;
    scan.openDirs.set(dir, open);
  }
  return open;
}

/** Every path base is open (see `openDir`): once per call, the bases can change between calls. */
export function basesOpen(scan: Scan): boolean {
  scan.basesOpen ??= scan.bases.every((base) => openDir(scan, base));
  return scan.basesOpen;
}

// Pre-filter: docs/protected-paths.md "Cost and file-system lookups". A path under a base that is
// not itself protected can only match an entry if one of the segments it adds after the base is
// a segment of some entry (an absolute entry below the base starts with one; an anywhere entry's
// last segment must lie past the base's end).

/** The hot segments; null when the pre-filter does not apply: glob entries, an entry at the root, win32. */
export function collectHotSegments(m: Setup): Set<string> | null {
  if (m.win || m.globEntries) return null;
  const hot = new Set<string>();
  for (const entry of m.entries) {
    const lists = entry.anywhere ? [entry.segs] : entry.keys.map((k) => k.segs);
    for (const segs of lists) {
      let named = false;
      for (const seg of segs) {
        if (seg === '') continue;
        hot.add(seg);
        named = true;
      }
      if (!named) return null;
    }
  }
  return hot;
}

/** Matches where one of `segments` is a whole `/`-separated segment of a string. */
export function segmentPattern(segments: ReadonlySet<string>): RegExp {
  const names = [...segments].filter((seg) => seg !== '').map((seg) => seg.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'));
  return names.length === 0 ? /(?!)/ : new RegExp(`(?:^|/)(?:${names.join('|')})(?=/|$)`);
}

/** A path segment holding a glob character (group 1), matched from the segment's start only: linear. */
const GLOB_SEGMENT = /(?:^|\/)([^/*?[]*[*?[][^/]*)/;

/** An ASCII word none of whose segments an entry names, nor could stand for one as a glob. */
export function isCold(m: Setup, form: string): boolean {
  const hot = m.hotSegments;
  if (hot === null || NON_ASCII.test(form) || form.includes(CURRENT_DIR)) return false;
  const folded = m.fold ? form.toLowerCase() : form;
  // Native scans rather than a slice and a lookup per segment (a long text has thousands).
  if (m.hotSegmentPattern!.test(folded)) return false;
  // A glob segment is cold when it names no hot segment either (as the comparison would read
  // it: a candidate wildcard does not match a leading dot): every name it could stand for is
  // cold. `**` may stand for several segments, so it is hot whenever `*` is.
  if (!GLOB.test(folded)) return true;
  const globs = new RegExp(GLOB_SEGMENT.source, 'g');
  for (let match = globs.exec(folded); match !== null; match = globs.exec(folded)) if (globNamesHot(hot, match[1]!)) return false;
  return true;
}

function globNamesHot(hot: Set<string>, seg: string): boolean {
  for (const name of hot) if (wildcard(seg === '**' ? '*' : seg, name, true)) return true;
  return false;
}

/**
 * The folded names `w` for which `base/w` matches an entry (see `Setup.plainNames`); null for a
 * base that is itself protected, holds glob characters, when the policy has glob entries, or on win32.
 */
export function namesUnder(m: Setup, base: string): Set<string> | null {
  if (m.win || m.globEntries || GLOB.test(base)) return null;
  const b = makeKey(m, base);
  // Everything under the base matches: the ordinary comparison finds and reports it.
  if (matchKey(m, b, false)) return null;
  const names = new Set<string>();
  for (const entry of m.entries) {
    if (entry.anywhere) {
      // `/s1/…/sn/` inside `base/w/` but not inside `base/`: it ends there, so sn is w.
      const head = entry.segs.slice(0, -1);
      if (b.prefix.endsWith(head.length === 0 ? '/' : `/${head.join('/')}/`)) names.add(entry.segs[entry.segs.length - 1]!);
      continue;
    }
    for (const k of entry.keys) {
      // base/w is the entry itself; deeper entries are not matched by their ancestor base/w.
      if (!k.key.startsWith(b.prefix)) continue;
      const rest = k.key.slice(b.prefix.length);
      if (rest !== '' && !rest.includes('/')) names.add(rest);
    }
  }
  return names;
}
