import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { NOT_NORMAL } from './chars.js';
import { KIND_DIRECTORY, KIND_FILE, KIND_MISSING, KIND_SYMLINK_OR_ERROR, knownMissing, listedKind } from './listing.js';
import { type Scan, spend } from './scan.js';

// Filesystem lookups under the call's budget (`maxResolutions`), memoised within one call and
// never across calls: docs/protected-paths.md "Symlinks" and "Cost and file-system lookups".

export function defaultRealpath(p: string): string | null {
  try {
    // existsSync first: a failing realpath throws, and a thrown error costs several times the syscall.
    return existsSync(p) ? realpathSync.native(p) : null;
  } catch {
    return null;
  }
}

export function defaultReadlink(p: string): string | null {
  try {
    return lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ? readlinkSync(p) : null;
  } catch {
    return null;
  }
}

export const noReadlink = (): null => null;

/** Components from which `physicalByLstat` tries the whole path before walking from the root. */
const DEEP_PATH = 5;
/** How many of a path's nearest ancestors `physicalByLstat` looks up among the walked directories. */
const WALK_RESUME_TRIES = 3;
/** `walkedPrefix`: a prefix ended an earlier walk. */
const WALK_ENDED = -1;

/**
 * The physical path of `raw`, resolved as the kernel would: not lexically normalised first (so
 * `link/..` means the link target's parent), the longest existing prefix through realpath, a
 * dangling symlink after it followed through readlink (writing through it creates its target),
 * and whatever does not exist yet appended as written. `joinAt`: where the base `raw` was joined to ends.
 */
export function physical(scan: Scan, raw: string, hops = 0, joinAt?: number): string {
  const memo = scan.physMemo.get(raw);
  if (memo !== undefined) return memo;
  const m = scan.m;
  if (m.realFs) {
    const fast = physicalByLstat(scan, raw, joinAt);
    if (fast !== null) {
      scan.physMemo.set(raw, fast);
      return fast;
    }
  }
  let out = realpath(scan, raw);
  if (out === null) {
    const { root } = m.path.parse(raw);
    const segs = raw
      .slice(root.length)
      .split(m.win ? /[\\/]/ : '/')
      .filter((x) => x !== '' && x !== '.');
    let prefix = root;
    const prefixes: string[] = [root];
    for (let i = 0; i < segs.length - 1; i += 1) {
      prefix = prefix.endsWith(m.path.sep) ? prefix + segs[i]! : prefix + m.path.sep + segs[i]!;
      prefixes.push(prefix);
    }
    for (let i = segs.length - 1; i >= 0 && out === null; i -= 1) {
      const real = realpath(scan, prefixes[i]!);
      if (real === null) continue;
      const first = segs[i]!;
      const target = first === '..' || hops >= 40 ? null : readlink(scan, m.path.join(real, first));
      if (target !== null) {
        const base = m.path.isAbsolute(target) ? target : m.path.join(real, target);
        const rest = segs.slice(i + 1);
        out = physical(scan, rest.length > 0 ? base + m.path.sep + rest.join(m.path.sep) : base, hops + 1);
      } else {
        out = m.path.resolve(real, ...segs.slice(i));
      }
    }
  }
  const found = out ?? raw;
  // Already absolute and normal (the usual realpath answer): resolve() would return it as it is.
  const resolved = !m.win && found.charCodeAt(0) === 0x2f /* / */ && !NOT_NORMAL.test(found) ? found : m.path.resolve(m.cwd, found);
  scan.physMemo.set(raw, resolved);
  return resolved;
}

/**
 * `physical` for the common case, in one `lstat` per path prefix (memoised within the call):
 * walking from the root, while every prefix is an existing entry that is not a symlink, the
 * prefix is its own real path (`..` after it is its textual parent); the first prefix that does
 * not exist — so is not a dangling symlink either — or is not a directory ends the walk, and the
 * rest is appended and normalised, exactly as `physical` does after its longest existing
 * prefix. Null when a prefix is a symlink or a lookup fails otherwise: `physical` then does the
 * general resolution. POSIX only, real filesystem only (an injected realpath describes its own
 * world).
 */
function physicalByLstat(scan: Scan, raw: string, joinAt?: number): string | null {
  if (raw.charCodeAt(0) !== 0x2f /* / */) return null;
  // A name directly under a working directory (`cwd/read`): one lstat of the name and one
  // realpath of the directory (once per call), not an lstat of every ancestor.
  const slash = raw.lastIndexOf('/');
  if (slash > 0 && scan.baseSet.has(raw.slice(0, slash))) {
    const name = raw.slice(slash + 1);
    if (name !== '' && name !== '.' && name !== '..') {
      const kind = lstatKind(scan, raw);
      if (kind === KIND_SYMLINK_OR_ERROR) return null;
      const parent = raw.slice(0, slash);
      const dir = kind === KIND_MISSING && knownMissing(scan, parent, parent.length) ? null : realDirectory(scan, parent);
      if (dir !== null) return dir === '/' ? `/${name}` : `${dir}/${name}`;
      // A directory that does not resolve (a `cd` target that does not exist): the walk from
      // the root below settles it with the lstats it shares with its siblings, where the
      // general resolution would realpath every prefix of every name in it.
    }
  }
  const n = raw.length;
  const normal = !NOT_NORMAL.test(raw);
  let cur = '';
  let i = 1;
  seedWalked(scan);
  // Resume below a directory an earlier walk of this call reached without a symlink (it is its
  // own real path): names sharing a parent walk it once, not once per ancestor per name. A few
  // tries from the end find the usual parent; prefixes longer than any directory walked are
  // skipped unhashed (a whole file's text read as one path would hash most of itself per try).
  let k = walkedPrefix(scan, raw, raw.lastIndexOf('/', scan.walkedLongest), normal);
  // Where an earlier walk ended (a name missing, or a file, under walked directories): the
  // walk would end there again and return the path as written.
  if (k === WALK_ENDED) return raw;
  // Or at the directory the word was joined to, or one of its nearest ancestors: a whole value
  // of many lines holds slashes of its own, so the nearest ancestors of its end are no directories.
  if (k === 0 && joinAt !== undefined && joinAt > 1 && raw.charCodeAt(joinAt) === 0x2f /* / */) k = walkedPrefix(scan, raw, joinAt, false);
  if (k > 0) {
    cur = raw.slice(0, k);
    i = k + 1;
  }
  // A deep path no walk of this call reached usually exists (a file being read): one lstat
  // and one realpath beat an lstat per ancestor. A missing one is walked from the root below.
  if (cur === '' && normal && countSlashes(raw) >= DEEP_PATH) {
    const kind = lstatKind(scan, raw);
    if (kind !== KIND_MISSING) return realDirectory(scan, raw);
  }
  while (i <= n) {
    let j = raw.indexOf('/', i);
    if (j === -1) j = n;
    if (j > i) {
      const seg = raw.slice(i, j);
      if (seg === '..') {
        cur = cur.slice(0, Math.max(0, cur.lastIndexOf('/')));
      } else if (seg !== '.') {
        const next = `${cur}/${seg}`;
        const kind = lstatKind(scan, next);
        if (kind === KIND_SYMLINK_OR_ERROR) return null;
        if (kind === KIND_MISSING || kind === KIND_FILE) {
          noteWalk(scan, scan.walkEnds, next);
          return normal ? raw : posix.resolve(next + raw.slice(j));
        }
        noteWalk(scan, scan.walked, next);
        cur = next;
      }
    }
    i = j + 1;
  }
  return cur === '' ? '/' : cur;
}

/**
 * Bases that are their own real path now (one realpath each, shared with the rest of the call)
 * start `walked`: a walk below the working directory resumes there instead of taking an lstat
 * per ancestor from the root.
 */
function seedWalked(scan: Scan): void {
  if (scan.walkedSeeded === true) return;
  scan.walkedSeeded = true;
  for (const base of scan.bases) {
    if (realDirectory(scan, base) !== base) continue;
    // Its own real path: none of its ancestors is a symlink either, so `cd ..` and `../lib`
    // resume at the parent instead of taking an lstat per ancestor from the root.
    for (let k = base.length; k > 0; k = base.lastIndexOf('/', k - 1)) noteWalk(scan, scan.walked, k === base.length ? base : base.slice(0, k));
  }
}

/**
 * The end of the first of `raw`'s prefixes ending at the slash `from` or one of the
 * WALK_RESUME_TRIES slashes before it that a walk of this call reached (see
 * `physicalByLstat`); WALK_ENDED when `ends` and one of them ended a walk first; 0 when none.
 */
function walkedPrefix(scan: Scan, raw: string, from: number, ends: boolean): number {
  for (let k = from, tries = 0; k > 0 && tries < WALK_RESUME_TRIES; k = raw.lastIndexOf('/', k - 1), tries += 1) {
    const prefix = raw.slice(0, k);
    if (scan.walked.has(prefix)) return k;
    if (ends && scan.walkEnds.has(prefix)) return WALK_ENDED;
  }
  return 0;
}

/** Adds a path to `walked` or `walkEnds`, keeping `walkedLongest`. */
function noteWalk(scan: Scan, set: Set<string>, p: string): void {
  set.add(p);
  if (p.length > scan.walkedLongest) scan.walkedLongest = p.length;
}

function lstatKind(scan: Scan, p: string): number {
  const memo = scan.kindMemo.get(p);
  if (memo !== undefined) return memo;
  const listed = listedKind(scan, p);
  if (listed !== null) {
    scan.kindMemo.set(p, listed);
    return listed;
  }
  spend(scan);
  let kind: number;
  try {
    const st = lstatSync(p, { throwIfNoEntry: false });
    kind = st === undefined ? KIND_MISSING : st.isSymbolicLink() ? KIND_SYMLINK_OR_ERROR : st.isDirectory() ? KIND_DIRECTORY : KIND_FILE;
  } catch {
    kind = KIND_SYMLINK_OR_ERROR;
  }
  scan.kindMemo.set(p, kind);
  return kind;
}

/** `realpath` with the default lookup, without its `existsSync` (a working directory exists). */
export function realDirectory(scan: Scan, p: string): string | null {
  const memo = scan.rpMemo.get(p);
  if (memo !== undefined) return memo;
  spend(scan);
  let real: string | null = null;
  try {
    real = realpathSync.native(p);
  } catch {
    real = null;
  }
  scan.rpMemo.set(p, real);
  return real;
}

function realpath(scan: Scan, p: string): string | null {
  const memo = scan.rpMemo.get(p);
  if (memo !== undefined) return memo;
  spend(scan);
  const real = scan.m.realpath(p);
  scan.rpMemo.set(p, real);
  return real;
}

function readlink(scan: Scan, p: string): string | null {
  const memo = scan.linkMemo.get(p);
  if (memo !== undefined) return memo;
  spend(scan);
  const target = scan.m.readlink(p);
  scan.linkMemo.set(p, target);
  return target;
}

function countSlashes(s: string): number {
  let count = 0;
  for (let i = s.indexOf('/'); i !== -1; i = s.indexOf('/', i + 1)) count += 1;
  return count;
}
