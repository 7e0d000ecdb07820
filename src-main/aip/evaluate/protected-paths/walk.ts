import { posix } from 'node:path';
import { isCommandKey } from '../paths/executed.js';
import { expand, words } from './candidates.js';
import { CURRENT_DIR, FAST_WORD, GLOB, NOT_NORMAL, PATH_MAX, UNKNOWN_OUTPUT } from './chars.js';
import { basesOpen, checkLexical } from './matcher.js';
import { LimitReached, report, type Scan, type Scope, type Setup, type Site } from './scan.js';
import type { ProtectedPathMatch } from './types.js';

// The walk over the arguments: every string at any depth (values, keys, array items) is read
// for candidates (docs/protected-paths.md "How candidates are read"). Absolute candidates are
// compared at once; relative ones and physical resolutions are queued on the scan for `find`.

/** What keeps a relative form from being one plain name under its base: separators, globs, non-ASCII (folded differently). */
const BARE_NAME_EXCLUDED = /[/\\*?[\u0080-\uffff]/;
/** A value that may name a directory under any key: absolute, home-relative, a file: URL. */
const DIR_START = /^(?:[~/$%\\]|[A-Za-z]:|file:)/i;
/** Argument names whose value is a working directory for the other arguments' relative paths. */
const DIR_KEY = /(?:cwd|dir|directory|folder|root|workspace|base)$/i;

export function walk(scan: Scan, value: unknown, depth: number): ProtectedPathMatch | null {
  const limits = scan.m.limits;
  scan.nodes += 1;
  if (scan.nodes > limits.maxNodes) throw new LimitReached('too_large', `more than ${limits.maxNodes} values in the arguments`);
  if (typeof value === 'string') return scanString(scan, value);
  if (value === null || typeof value !== 'object') return null;
  if (depth >= limits.maxDepth) throw new LimitReached('too_deep', `arguments nested deeper than ${limits.maxDepth} levels`);
  const outer = scan.scope;
  scan.scope = containerScope(scan.m, value as object, outer);
  const hit = walkContainer(scan, value as object, depth, outer);
  scan.scope = outer;
  return hit;
}

/**
 * A container's scope: its directory-like values under any key (`{"path": "~", "filename":
 * ".ssh/id_rsa"}`) — absolute or home-relative values, and relative values of keys named like
 * a directory (`cwd`, `dir`, …) — are directories for every relative value inside it.
 */
function containerScope(m: Setup, value: object, parent: Scope): Scope {
  const scope: Scope = { parent, dirs: [] };
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'string') collectDir(m, item, false, scope);
  } else {
    for (const [key, item] of Object.entries(value)) if (typeof item === 'string') collectDir(m, item, DIR_KEY.test(key), scope);
  }
  return scope.dirs.length === 0 ? parent : scope;
}

function collectDir(m: Setup, value: string, keyed: boolean, scope: Scope): void {
  if (value.length > PATH_MAX) return;
  const t = value.trim();
  if (t === '' || /[\r\n]/.test(t)) return;
  if (FAST_WORD.test(t)) {
    if (keyed || t.charCodeAt(0) === 0x2f /* / */) scope.dirs.push(t);
    return;
  }
  if (!keyed && !DIR_START.test(t)) return;
  for (const form of expand(m, t)) {
    if (GLOB.test(form) || form.includes(CURRENT_DIR) || form.includes(UNKNOWN_OUTPUT)) continue;
    if (keyed || m.path.isAbsolute(form)) scope.dirs.push(form);
  }
}

/** `outer`: the scope keys are read in (a key is not a file inside its sibling values). */
function walkContainer(scan: Scan, value: object, depth: number, outer: Scope): ProtectedPathMatch | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      scan.parts.push(i);
      const hit = walk(scan, value[i], depth + 1);
      if (hit) return hit;
      scan.parts.pop();
    }
    return null;
  }
  const maxNodes = scan.m.limits.maxNodes;
  for (const key of Object.keys(value)) {
    scan.parts.push(key);
    scan.location = 'key';
    scan.nodes += 1;
    if (scan.nodes > maxNodes) throw new LimitReached('too_large', `more than ${maxNodes} values in the arguments`);
    const inner = scan.scope;
    scan.scope = outer;
    const keyHit = scanString(scan, key);
    scan.scope = inner;
    if (keyHit) return keyHit;
    scan.location = 'value';
    // Classified once per key, not per string below it: the walk stays linear.
    const command = !scan.executingTool && isCommandKey(key) ? 1 : 0;
    scan.commandKeys += command;
    const hit = walk(scan, (value as Record<string, unknown>)[key], depth + 1);
    if (hit) return hit;
    scan.commandKeys -= command;
    scan.parts.pop();
  }
  return null;
}

function scanString(scan: Scan, s: string): ProtectedPathMatch | null {
  const m = scan.m;
  scan.chars += s.length;
  if (scan.chars > m.limits.maxChars) throw new LimitReached('too_large', `more than ${m.limits.maxChars} characters of strings in the arguments`);
  if (s.trim() === '') return null;
  let site: Site | null = null;
  const isValue = scan.location === 'value';
  if (!m.win && s.length <= PATH_MAX && FAST_WORD.test(s)) {
    // One word that `words` and `expand` would return unchanged as its only form: no blanks,
    // quotes, `=`, `:`, `,`, `@`, `%`, `~`, `$`, `\`, braces, globs, non-ASCII, leading `-`.
    const physical = isValue || s.includes('/') || s.charCodeAt(0) === 0x2e; /* . */
    site = { parts: [...scan.parts], location: scan.location, value: s };
    if (s.charCodeAt(0) === 0x2f /* / */) {
      const abs = NOT_NORMAL.test(s) ? posix.resolve(s) : s;
      const hit = checkLexical(scan, abs);
      if (hit) return report(hit.entry, site, hit.path, 'lexical');
      if (physical) scan.physical.push({ form: s, physical, site });
    } else {
      scan.relative.push({ form: s, physical, site, word: s !== '.' && s !== '..' && !s.includes('/'), scope: scan.scope });
    }
    return null;
  }
  // The string's own `cd` targets are directories for its words only, not for its siblings'.
  const own: Scope = { parent: scan.scope, dirs: [] };
  const found = words(m, s, own, scan.executingTool || scan.commandKeys > 0, basesOpen(scan));
  const scope = own.dirs.length > 0 ? own : scan.scope;
  for (const [word, isWhole] of found) {
    for (const form of expand(m, word)) {
      // Longer than PATH_MAX, or with a line break in a whole value: text, not a path to resolve.
      // Bare words inside longer strings are compared lexically only (docs/protected-paths.md "Symlinks").
      const physical = form.length <= PATH_MAX && ((isWhole && isValue && !/[\r\n]/.test(form)) || /[\\/]/.test(form) || /^[~.$%]/.test(word));
      if (m.path.isAbsolute(form)) {
        const abs = m.path.resolve(m.cwd, form);
        const hit = checkLexical(scan, abs);
        site ??= { parts: [...scan.parts], location: scan.location, value: s };
        if (hit) return report(hit.entry, site, hit.path, 'lexical');
        if (physical) scan.physical.push({ form, physical, site });
      } else {
        site ??= { parts: [...scan.parts], location: scan.location, value: s };
        const pwd = form.includes(CURRENT_DIR);
        // A bare ASCII name without glob characters is compared through the `plainNames` table, as on the fast path.
        scan.relative.push({ form, physical, site, word: !pwd && form !== '.' && form !== '..' && !BARE_NAME_EXCLUDED.test(form), pwd, scope });
      }
    }
  }
  return null;
}
