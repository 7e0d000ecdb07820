import { posix, win32 } from 'node:path';
import { ColdWords } from '../paths/cold-words.js';
import { isExecutingTool } from '../paths/executed.js';
import { MAX_PATH_BASES, type PathBases } from '../paths/path-bases.js';
import { GLOB } from './chars.js';
import { collectHotSegments, compileEntry, keySegments, makeKey, matchKey, namesUnder, segmentPattern } from './matcher.js';
import type { Entry } from './types.js';
import { defaultReadlink, defaultRealpath, noReadlink, physical } from './physical.js';
import { joinAndCheck, scopeDirs } from './relative.js';
import { formatField, formatPath, LimitReached, newScan, report, type Scan, type Setup } from './scan.js';
import { type ArgumentContext, DEFAULT_PROTECTED_PATH_LIMITS, type ProtectedPathFinding, type ProtectedPathMatcherOptions, type ProtectedPathSource } from './types.js';
import { walk } from './walk.js';

/**
 * Protected paths: spec 001 §3.4.5, §4.3 step 2 (`arguments_contain_protected_path`), §10.1.
 * A tools/call is blocked (-32007) when any string anywhere in its arguments names a path that
 * is, or is inside, a protected path: candidate paths are read from every string and compared
 * segment by segment, lexically and with symlinks resolved. What is matched, what is not, and
 * what it costs: docs/protected-paths.md.
 */
export class ProtectedPathMatcher {
  private readonly m: Setup;
  private readonly pathBases: PathBases | null;
  /** The `pathBases` revision `bases` was computed from. */
  private basesRevision = -1;
  /**
   * Filesystem lookups (lstat, realpath, readlink, directory listings) the last `find` made: the
   * benchmark prints them beside the decision, since at small sizes they, not the reading, set
   * its cost (docs/protected-paths.md "Cost and file-system lookups").
   */
  lastLookups = 0;

  constructor(patterns: readonly string[], options: ProtectedPathMatcherOptions) {
    const platform = options.platform ?? process.platform;
    const win = platform === 'win32';
    const path = win ? win32 : posix;
    if (!path.isAbsolute(options.homeDir)) throw new TypeError(`homeDir must be absolute: ${options.homeDir}`);
    if (!path.isAbsolute(options.cwd)) throw new TypeError(`cwd must be absolute: ${options.cwd}`);
    this.pathBases = options.pathBases ?? null;
    const m: Setup = {
      path,
      win,
      fold: platform === 'win32' || platform === 'darwin',
      home: path.resolve(options.homeDir),
      cwd: path.resolve(options.cwd),
      limits: { ...DEFAULT_PROTECTED_PATH_LIMITS, ...options.limits },
      environment: options.environment,
      realpath: options.realpath ?? defaultRealpath,
      readlink: options.readlink ?? (options.realpath ? noReadlink : defaultReadlink),
      realFs: !options.realpath && !options.readlink && !win,
      entries: [],
      globEntries: false,
      hotSegments: null,
      hotSegmentPattern: null,
      coldWords: null,
      bases: [],
      plainNames: new Map(),
    };
    this.m = m;
    const entries: Entry[] = [];
    for (const p of patterns) {
      if (typeof p !== 'string') throw new TypeError('protected_paths entries must be strings');
      const entry = compileEntry(m, p, 'policy');
      if (entry) entries.push(entry);
    }
    for (const p of options.alwaysProtect ?? []) {
      if (typeof p !== 'string') throw new TypeError('alwaysProtect entries must be strings');
      const entry = compileEntry(m, p, 'auto');
      if (entry) entries.push(entry);
    }
    m.entries = entries;
    m.globEntries = entries.some((e) => e.glob);
    this.refresh();
  }

  /** The compiled entries, for diagnostics: as written and the absolute forms compared. */
  describe(): { protectedPath: string; source: ProtectedPathSource; anywhere: boolean; compared: string[] }[] {
    return this.m.entries.map((e) => ({
      protectedPath: e.written,
      source: e.source,
      anywhere: e.anywhere,
      compared: e.anywhere ? [e.segs.join('/')] : e.keys.map((k) => k.key),
    }));
  }

  /** Recomputes the real paths of the entries (after the filesystem changed under one, e.g. on policy reload). */
  refresh(): void {
    const m = this.m;
    const scan = newScan(m, Number.POSITIVE_INFINITY);
    for (const entry of m.entries) {
      if (entry.anywhere) continue;
      const lexical = makeKey(m, m.path.resolve(entry.expanded));
      const real = makeKey(m, physical(scan, entry.expanded));
      const keys = real.key === lexical.key ? [lexical] : [lexical, real];
      entry.keys = keys.map((k) => ({ ...k, segs: keySegments(k.key) }));
    }
    m.hotSegments = collectHotSegments(m);
    m.coldWords = m.hotSegments === null ? null : new ColdWords(m.hotSegments, m.fold);
    m.hotSegmentPattern = m.hotSegments === null ? null : segmentPattern(m.hotSegments);
    this.refreshBases(scan);
  }

  /** Recomputes `bases` and their name tables (after a refresh, or when the path bases changed). */
  private refreshBases(scan: Scan): void {
    const m = this.m;
    const bases: string[] = [];
    const add = (dir: string): void => {
      if (!bases.includes(dir)) bases.push(dir);
    };
    for (const dir of [m.cwd, ...(this.pathBases?.list() ?? [])]) {
      const abs = m.path.resolve(dir);
      add(abs);
      add(physical(scan, abs));
    }
    m.bases = bases;
    this.basesRevision = this.pathBases?.revision ?? 0;
    m.plainNames = new Map();
    for (const base of bases) {
      const names = namesUnder(m, base);
      if (names !== null) m.plainNames.set(base, names);
    }
  }

  /**
   * §4.3 step 2. Returns the first finding, or null when no string in `args` names a protected
   * path. A `too_deep`/`too_large`/`unknowable` finding means the arguments were not fully
   * inspected: block. `context.tool` narrows the `unknowable` rule to strings run as commands;
   * without it every string is one.
   */
  find(args: unknown, context?: ArgumentContext): ProtectedPathFinding | null {
    const m = this.m;
    this.lastLookups = 0;
    if (m.entries.length === 0) return null;
    if (this.pathBases !== null && this.pathBases.revision !== this.basesRevision) this.refreshBases(newScan(m, Number.POSITIVE_INFINITY));
    const scan = newScan(m, m.limits.maxResolutions);
    scan.executingTool = context === undefined || isExecutingTool(context.tool);
    try {
      const hit = walk(scan, args, 0);
      if (hit) return hit;
      // Keys are names, not paths a tool opens: only relative values need every base.
      if (this.pathBases?.overflowed === true && scan.relative.some((d) => d.site.location === 'value')) {
        throw new LimitReached('too_large', `more than ${MAX_PATH_BASES} directories the server may resolve relative paths against`);
      }
      // Each relative word against every path base and every directory of its own scope (the
      // directory-like values around it, its `cd` targets), each with symlinks resolved: a
      // bounded number of joins per word, so the work stays linear in the arguments' size.
      for (const d of scan.relative) {
        scan.parts = d.site.parts as (string | number)[];
        scan.location = d.site.location;
        const local = d.scope === undefined ? [] : scopeDirs(scan, d.scope);
        for (let k = 0; k < scan.bases.length + local.length; k += 1) {
          const inScope = k >= scan.bases.length;
          const base = inScope ? local[k - scan.bases.length]! : scan.bases[k]!;
          const found = joinAndCheck(scan, d, base, inScope);
          if (found) return found;
        }
      }
      for (const d of scan.physical) {
        scan.parts = d.site.parts as (string | number)[]; // the walk is over: nothing mutates it now
        scan.location = d.site.location;
        const real = physical(scan, d.form, 0, d.joinAt);
        // A cold word under an open base whose real path is its lexical one: settled already.
        if (d.coldJoin === true && real === d.form) continue;
        // Already compared, with the same key and glob flag, as a lexical candidate: no match.
        if (scan.lexSeen.has(real) && !GLOB.test(real) && !GLOB.test(d.form)) continue;
        const entry = matchKey(m, makeKey(m, real), GLOB.test(d.form));
        if (entry) return report(entry, d.site, real, 'realpath');
      }
      return null;
    } catch (error) {
      if (!(error instanceof LimitReached)) throw error;
      return {
        reason: error.reason,
        protectedPath: '',
        source: 'limit',
        argumentPath: formatPath(scan.parts),
        field: formatField(scan.parts),
        location: scan.location,
        value: '',
        detail: error.detail,
      };
    } finally {
      this.lastLookups = scan.lookups;
    }
  }
}
