import type { posix } from 'node:path';
import type { ColdWords } from '../paths/cold-words.js';
import type { Environment } from '../paths/shell-vars.js';
import type { Entry, Listing, ProtectedPathLimits, ProtectedPathMatch } from './types.js';

/**
 * What a matcher knows for every call: the platform's path rules, the compiled entries with
 * their pre-filter tables, the lookups, and the path bases. Set by the constructor; `entries`'
 * real forms, the tables and `bases` are recomputed by `refresh` and when the path bases change.
 */
export interface Setup {
  readonly path: typeof posix;
  readonly win: boolean;
  /** Case-insensitive comparison (darwin, win32: their default filesystems). */
  readonly fold: boolean;
  readonly home: string;
  readonly cwd: string;
  readonly limits: ProtectedPathLimits;
  readonly environment: Environment | undefined;
  readonly realpath: (p: string) => string | null;
  readonly readlink: (p: string) => string | null;
  /** Neither realpath nor readlink injected: the real filesystem, so `physicalByLstat` may be used. */
  readonly realFs: boolean;
  entries: Entry[];
  globEntries: boolean;
  /** Every segment of every compared entry form, folded: docs/protected-paths.md "Cost and file-system lookups". Null when the pre-filter does not apply. */
  hotSegments: Set<string> | null;
  /** Finds a whole segment equal to a hot segment (see `isCold`). */
  hotSegmentPattern: RegExp | null;
  /** The pre-filter over `hotSegments` that drops cold plain words unhashed (paths/cold-words.ts). */
  coldWords: ColdWords | null;
  /** `cwd`, the path bases, and each with symlinks resolved where that differs. */
  bases: string[];
  /**
   * For each of `bases`: the folded names `w` for which `base/w` matches an entry. A plain name
   * not in the set cannot match under that base, so it is not compared entry by entry (see `namesUnder`).
   */
  plainNames: Map<string, Set<string>>;
}

/** Where a string is in the arguments. */
export interface Site {
  parts: readonly (string | number)[];
  location: 'value' | 'key';
  value: string;
}

/**
 * The directories an argument sees besides the path bases: directory-like values of its own
 * object or array (and of the containers around it), and the `cd` targets of its strings.
 */
export interface Scope {
  parent: Scope | null;
  /** Absolute, or relative to the bases and to the directories before it. */
  dirs: string[];
  /** `dirs` of this scope and its parents resolved, once the walk is over. */
  resolved?: readonly string[];
}

/** A candidate queued during the walk: a relative word to join with every base, or a path to resolve physically. */
export interface Deferred {
  form: string;
  physical: boolean;
  /** `form` is one ASCII name without glob characters (`read`, `q1.csv`): see `plainNames`. */
  word?: boolean;
  /** `form` holds CURRENT_DIR (`$PWD`, `$(pwd)`): each base is put in its place. */
  pwd?: boolean;
  site: Site;
  scope?: Scope;
  /** No segment of `form` is a hot segment, so under an open base it cannot match lexically; computed once per word, not per base. */
  cold?: boolean;
  /** Physical queue only: `form` is a cold word joined to a base, already in normal form. */
  coldJoin?: boolean;
  /** Physical queue only: where the base `form` was joined to ends (see `physicalByLstat`). */
  joinAt?: number;
  /** `form` without leading `./` segments (see `joinAndCheck`), once asked. */
  bare?: string;
}

/** The state of one check: its budgets, its lookup caches, the queued candidates and where the walk is. */
export interface Scan {
  readonly m: Setup;
  nodes: number;
  chars: number;
  /** Lookups left before the call is refused (`maxResolutions`). */
  resolutions: number;
  /** Lookups made so far (the benchmark prints them as `fs_lookups`). */
  lookups: number;
  comparisons: number;
  rpMemo: Map<string, string | null>;
  /** `lstat` kinds of path prefixes (see `lstatKind`), for the default filesystem only. */
  kindMemo: Map<string, number>;
  /** Directories `physicalByLstat` reached from the root through no symlink: their own real paths. */
  walked: Set<string>;
  /** Where those walks ended: a missing name or a file directly under a walked directory. */
  walkEnds: Set<string>;
  /** The bases are in `walked` when they are their own real path (see `seedWalked`). */
  walkedSeeded?: boolean;
  /** The longest path in `walked` or `walkEnds`: no longer prefix can be found there. */
  walkedLongest: number;
  /** Directory listings (see `listedKind`), and how many names were asked about per directory before. */
  listings: Map<string, Listing | null>;
  listingAsks: Map<string, number>;
  linkMemo: Map<string, string | null>;
  physMemo: Map<string, string>;
  lexSeen: Set<string>;
  relative: Deferred[];
  physical: Deferred[];
  /** The path bases: cwd, the server's other directories, and their real forms. */
  bases: string[];
  baseSet: Set<string>;
  scope: Scope;
  /** Scope directories (and bases) that are not themselves protected (see `openDir`). */
  openDirs: Map<string, boolean>;
  /** Whether every base is open, once asked (see `basesOpen`). */
  basesOpen?: boolean;
  /** `namesUnder` tables of scope directories, computed when first needed. */
  names: Map<string, Set<string> | null>;
  parts: (string | number)[];
  location: 'value' | 'key';
  /** The tool runs its arguments, or its name is not known: every string is a command. */
  executingTool: boolean;
  /** Keys on the current path that name a command (`command`, `args`, …): strings below them are commands. */
  commandKeys: number;
}

/** A limit of `ProtectedPathLimits` was reached, or a path cannot be known: `find` turns it into a finding that blocks. */
export class LimitReached extends Error {
  constructor(
    readonly reason: 'too_deep' | 'too_large' | 'unknowable',
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** A fresh scan; `maxResolutions` infinite for the matcher's own lookups (`refresh`), which no call pays for. */
export function newScan(m: Setup, maxResolutions: number): Scan {
  return {
    m,
    nodes: 0,
    chars: 0,
    resolutions: maxResolutions,
    lookups: 0,
    walkedLongest: 0,
    comparisons: Number.isFinite(maxResolutions) ? m.limits.maxComparisons : Number.POSITIVE_INFINITY,
    rpMemo: new Map(),
    kindMemo: new Map(),
    walked: new Set(),
    walkEnds: new Set(),
    listings: new Map(),
    listingAsks: new Map(),
    linkMemo: new Map(),
    physMemo: new Map(),
    lexSeen: new Set(),
    relative: [],
    physical: [],
    bases: m.bases,
    baseSet: new Set(m.bases),
    scope: { parent: null, dirs: [] },
    names: new Map(),
    openDirs: new Map(),
    parts: [],
    location: 'value',
    executingTool: true,
    commandKeys: 0,
  };
}

/** Counts one filesystem lookup against the call's budget. */
export function spend(scan: Scan): void {
  scan.lookups += 1;
  scan.resolutions -= 1;
  if (scan.resolutions < 0) throw new LimitReached('too_large', `more than ${scan.m.limits.maxResolutions} filesystem lookups to resolve the arguments' paths`);
}

const VALUE_CUT = 1024;

export function report(entry: Entry, site: Site, candidate: string, via: 'lexical' | 'realpath'): ProtectedPathMatch {
  return {
    reason: 'protected_path',
    protectedPath: entry.written,
    source: entry.source,
    argumentPath: formatPath(site.parts),
    field: formatField(site.parts),
    location: site.location,
    value: site.value.length > VALUE_CUT ? `${site.value.slice(0, VALUE_CUT)}…` : site.value,
    candidate,
    via,
  };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function formatField(parts: readonly (string | number)[]): string {
  let out = '';
  for (const p of parts) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (IDENTIFIER.test(p)) out += out === '' ? p : `.${p}`;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

export function formatPath(parts: readonly (string | number)[]): string {
  const field = formatField(parts);
  if (field === '') return 'args';
  return field.startsWith('[') ? `args${field}` : `args.${field}`;
}
