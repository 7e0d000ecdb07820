import { CURRENT_DIR, GLOB, NOT_NORMAL_RELATIVE } from './chars.js';
import { KIND_DIRECTORY, KIND_SYMLINK_OR_ERROR, listedName } from './listing.js';
import { checkLexical, isCold, namesUnder, openDir } from './matcher.js';
import { physical, realDirectory } from './physical.js';
import { type Deferred, LimitReached, report, type Scan, type Scope } from './scan.js';
import type { ProtectedPathMatch } from './types.js';

// Relative candidates against every directory they may be resolved against: the path bases and
// the directories of their own scope (docs/protected-paths.md "Relative paths: every directory
// the server may use", "Directory + file-name pairs").

/** One relative word under one base, compared lexically; the physical join is queued. */
export function joinAndCheck(scan: Scan, d: Deferred, base: string, inScope: boolean): ProtectedPathMatch | null {
  const m = scan.m;
  if (d.pwd !== true) {
    d.cold ??= isCold(m, d.form);
    if (d.cold && openDir(scan, base)) {
      if (d.physical) {
        // `./docs/a.md` is `docs/a.md` to the kernel: without its leading `./` the word can be
        // settled by listings, and its join is already in normal form.
        const rel = (d.bare ??= withoutDotPrefix(d.form));
        if (!settledByListing(scan, base, rel)) scan.physical.push({ form: joinRaw(scan, base, rel), physical: true, site: d.site, coldJoin: !NOT_NORMAL_RELATIVE.test(rel), joinAt: base.length });
      }
      return null;
    }
  }
  const form = d.pwd === true ? d.form.replaceAll(CURRENT_DIR, base) : d.form;
  const plain = !m.win && d.pwd !== true && form !== '.' && form !== '..' && !form.includes('/');
  // A single name under a normalised absolute base: resolve() would only join them.
  const abs = plain ? joinRaw(scan, base, form) : m.path.resolve(base, form);
  let names: Set<string> | undefined;
  if (d.word === true) {
    if (!inScope) names = m.plainNames.get(base);
    else {
      if (!scan.names.has(base)) scan.names.set(base, namesUnder(m, base));
      names = scan.names.get(base) ?? undefined;
    }
  }
  const found = checkLexical(scan, abs, names === undefined ? undefined : m.fold ? form.toLowerCase() : form, names);
  if (found) return report(found.entry, d.site, found.path, 'lexical');
  if (d.physical) {
    const absolute = m.path.isAbsolute(form);
    scan.physical.push({ form: absolute ? form : joinRaw(scan, base, form), physical: true, site: d.site, joinAt: absolute ? undefined : base.length });
  }
  return null;
}

/**
 * The directories of a scope and its parents, resolved: absolute ones as they are, relative
 * ones against the path bases and the directories before them (`cd a && cd b`), each also
 * with symlinks resolved. More than `maxBases` fails closed.
 */
export function scopeDirs(scan: Scan, scope: Scope): readonly string[] {
  if (scope.resolved !== undefined) return scope.resolved;
  const m = scan.m;
  const parent = scope.parent === null ? [] : scopeDirs(scan, scope.parent);
  if (scope.dirs.length === 0) {
    scope.resolved = parent;
    return parent;
  }
  // The usual container: one absolute directory-like value beside its files, and no
  // directories around it (a long list of `{dir, file}` pairs makes one scope per pair).
  if (parent.length === 0 && scope.dirs.length === 1 && m.limits.maxBases >= 2 && m.path.isAbsolute(scope.dirs[0]!)) {
    return (scope.resolved = oneDirectory(scan, scope.dirs[0]!));
  }
  const list = [...parent];
  const seen = new Set<string>([...scan.bases, ...parent]);
  const add = (dir: string): void => {
    if (seen.has(dir)) return;
    if (list.length >= m.limits.maxBases) throw new LimitReached('too_large', `more than ${m.limits.maxBases} working directories named in the arguments`);
    seen.add(dir);
    list.push(dir);
  };
  const own: string[] = [];
  // A directory named again (`cd src` in every line of a long script) is resolved once: each
  // relative repeat would otherwise nest one level deeper (src/src/…) and exhaust `maxBases`.
  for (const dir of new Set(scope.dirs)) {
    const before = list.length;
    if (m.path.isAbsolute(dir)) add(m.path.resolve(dir));
    else for (const base of [...scan.bases, ...list]) add(m.path.resolve(base, dir));
    own.push(...list.slice(before));
  }
  for (const dir of own) if (!GLOB.test(dir)) add(physical(scan, dir));
  for (const dir of list) scan.baseSet.add(dir);
  scope.resolved = list;
  return list;
}

/** `scopeDirs` of a scope whose only directory is the absolute `dir`, without its sets and copies. */
function oneDirectory(scan: Scan, dir: string): string[] {
  const lexical = scan.m.path.resolve(dir);
  if (scan.bases.includes(lexical)) return [];
  const list = [lexical];
  if (!GLOB.test(lexical)) {
    const real = physical(scan, lexical);
    if (real !== lexical && !scan.bases.includes(real)) list.push(real);
  }
  for (const d of list) scan.baseSet.add(d);
  return list;
}

/**
 * A cold word under an open base, on the real filesystem: when the listings along it show no
 * symlink up to the first name that does not exist (or is a file, or is the last), its real path
 * is the base's real path plus the word, and when that directory is open too the word cannot
 * match either way. Settled without building the joined path or queueing it: no per-word work
 * beyond one listing per directory (docs/protected-paths.md "Cost and file-system lookups").
 */
function settledByListing(scan: Scan, base: string, form: string): boolean {
  // A glob is no name a listing can answer for.
  if (!scan.m.realFs || NOT_NORMAL_RELATIVE.test(form) || GLOB.test(form)) return false;
  let dir = base;
  for (let from = 0; ; ) {
    const slash = form.indexOf('/', from);
    const name = slash === -1 ? form.slice(from) : form.slice(from, slash);
    const kind = listedName(scan, dir, name);
    if (kind === null || kind === KIND_SYMLINK_OR_ERROR) return false;
    if (slash === -1 || kind !== KIND_DIRECTORY) break;
    dir = dir === '/' ? `/${name}` : `${dir}/${name}`;
    from = slash + 1;
  }
  // A base that does not exist (a `cd` target not created yet; its listing was empty by
  // ENOENT): nothing below it exists either, so the word's physical path is the base's own
  // (its existing prefix resolved, a dangling link followed) plus the word, as written.
  // Resolved already when the scope's directories were (`scopeDirs`): no second lookup.
  const real = scan.physMemo.get(base) ?? realDirectory(scan, base) ?? physical(scan, base);
  return openDir(scan, real);
}

function joinRaw(scan: Scan, base: string, rel: string): string {
  const sep = scan.m.path.sep;
  return base.endsWith(sep) ? base + rel : base + sep + rel;
}

/** A relative form without its leading `./` segments (`./x`, `.//./x` → `x`); `.` alone stays. */
function withoutDotPrefix(form: string): string {
  let i = 0;
  while (form.charCodeAt(i) === 0x2e /* . */ && form.charCodeAt(i + 1) === 0x2f /* / */) {
    i += 2;
    while (form.charCodeAt(i) === 0x2f) i += 1;
  }
  return i === 0 || i === form.length ? (i === 0 ? form : '.') : form.slice(i);
}
