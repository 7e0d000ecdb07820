import { type Dirent, type Stats, existsSync, lstatSync, opendirSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import { isCommandKey, isExecutingTool } from './paths/executed.js';
import { ColdWords } from './paths/cold-words.js';
import { MAX_PATH_BASES, type PathBases } from './paths/path-bases.js';
import { CURRENT_DIR as CURRENT_DIR_MARKER, readShell, UNKNOWN_OUTPUT as UNKNOWN_OUTPUT_MARKER } from './paths/shell.js';
import type { Environment } from './paths/shell-vars.js';

// Module-level copies of the markers: where modules are compiled to CommonJS (tsx: the tests
// and benchmarks), every use of an imported binding is a getter call, which profiles showed
// in the per-word loops (issue 11).
const CURRENT_DIR = CURRENT_DIR_MARKER;
const UNKNOWN_OUTPUT = UNKNOWN_OUTPUT_MARKER;

/*
 * Protected paths: spec 001 §3.4.5, §4.3 step 2 (`arguments_contain_protected_path`), §10.1.
 *
 * A tools/call is blocked (-32007) when any string anywhere in its arguments names a path that
 * is, or is inside, a protected path. The reference implementation's plain substring test is
 * both too weak (`~/project/../.ssh/id_rsa`, `$HOME/.ssh`, a symlink) and too strong (`~/.sshx`);
 * this matcher extracts candidate paths from every string and compares them segment by segment,
 * lexically and physically (symlinks resolved).
 *
 * Decisions (for docs/conformance.md):
 *
 * - Entries. `~`, `~/…`, `$HOME`, `${HOME}` (and `%USERPROFILE%`, `$env:USERPROFILE`) expand to
 *   `homeDir`; surrounding whitespace is trimmed; a trailing `/*` or `/**` means the directory
 *   itself. An absolute entry protects itself and everything inside it, segment-aware (`~/.sshx`
 *   is not inside `~/.ssh`; `~/.aws/credentials.bak` is not `~/.aws/credentials`). A relative
 *   entry (`.env`, `config/secrets.json`) means "that name, or that run of names, anywhere":
 *   every path with a segment `.env` (file or directory) is protected, `.env.local`, `.envrc` and
 *   `dotenv` are not — the proxy's working directory is arbitrary, so resolving `.env` against it
 *   would protect nothing useful. A relative entry starting with `..` is resolved against `cwd`.
 *   `*`, `?`, `[…]` in an entry are one-segment globs that also match dot names, and `**` spans
 *   segments, so `*.pem` protects every `.pem` file. `alwaysProtect` entries (policy file, data
 *   home) are never "anywhere" entries: a relative one is resolved against `cwd`.
 * - Every absolute entry is compared by its lexical and its real path (computed at construction;
 *   `refresh()` recomputes them, e.g. on policy reload). An ancestor of a protected path is not a
 *   match (`ls ~` is allowed; `tar czf - ~` is a residual risk).
 * - Candidates. Every string at any depth is searched: object values, object keys, array items.
 *   From each string: the whole string; its shell words (see "Shell reading" below); a naive split on blanks, quotes, brackets, commas and
 *   shell operators; the text after each `=` (`--file=…`, `if=…`), after a `:` that starts a path
 *   (`PATH=a:~/.ssh`, `host:~/.ssh`; never a drive letter's), after a leading `@` (`-d @file`,
 *   `file=@…`), a path glued to an option (`-i~/.ssh/id_rsa`); and the word without surrounding
 *   punctuation (`~/.ssh/id_rsa.` at the end of a sentence). `~`, `~user` (a sibling of
 *   `homeDir`), `~+`, `$HOME`, `${HOME}`, `$PWD`, `${PWD}` are expanded anywhere a word starts or
 *   a variable appears; the shell reader also expands the other variables (see "Shell reading").
 * - Brace expansion (`~/.{ssh,aws}`, `{r..t}`) applies to blank-free words that hold a separator,
 *   `~` or `$`, or start with `.` or `{` (the only ways a one-segment word becomes `.env`), or to
 *   every such word when the policy has glob entries; so compact JSON is not multiplied out.
 *   More than `maxExpansions` words from one word fails closed.
 * - Globs in candidates (`cat ~/.ss*`, `~/.ss?`, `~/.[s]sh`, `~/**`) match as the shell would: a
 *   wildcard does not match a leading dot, so `cat *` does not hit `.env` but `cat .e*` does. A
 *   literal name containing `*?[` is also compared literally.
 * - URLs: `file:` URLs (any case, with or without `localhost`/host, `file:///C:/…`) are decoded
 *   to their path; the host is ignored. Other `scheme://` URLs are not local paths and are not
 *   matched as such (`https://x/.env` is allowed), but their query values are
 *   (`?path=/home/u/.ssh`). Any `%XX` text is also tried percent-decoded, up to three rounds
 *   (`%2e%2e%2f`, `%252e`): a tool might decode it, and the decoded form can only block more.
 *   Malformed UTF-8 escapes leave the ASCII escapes decoded.
 * - Backslashes: separators on win32. Elsewhere a backslash is a filename character, but each
 *   word is also tried with `\` read as `/` and with backslashes removed (shell escapes); both
 *   can only block more.
 * - Relative candidates (issue 9 items 8, 13; docs/protected-paths.md) are resolved against
 *   every path base — `cwd` and `pathBases` (the server's command-line directories, MCP roots) —
 *   and against the directories of their own scope: directory-like values of the same object or
 *   array and of the containers around it, under any key (absolute, `~`, `$HOME`, `file:`; or
 *   relative under a key ending in cwd/dir/directory/folder/root/workspace/base), and the
 *   targets of `cd`, `pushd`, `-C`, `--cwd=`/`--directory=`/… in the same string (a bare `cd`
 *   means home; a relative target against the bases and the targets before it). Each also with
 *   symlinks resolved. A word is never joined with directories elsewhere in the message, so the
 *   joins per word are bounded and the scan stays linear. More than `maxBases` directories in
 *   one scope fails closed.
 * - Shell reading (paths/shell.ts): nested scripts (`bash -c '…'`, quoted words holding shell
 *   syntax) are read again up to `maxShellDepth` levels; `$(…)` and backquotes are evaluated
 *   when the output is known (echo, printf '%s', pwd, nested); variables are expanded from the
 *   script's own assignments (paths/shell-vars.ts), then from `environment` when given (unset:
 *   empty); an unknowable output or variable glued to path text or used as a `cd` target gives
 *   `{reason: 'unknowable'}` (block) in a string that is run as a command (paths/executed.ts:
 *   by the tool's name or a key on the string's path; every string when `find` is not told the
 *   tool). Elsewhere (a file's content) the unknowable part is dropped, as if it stood alone,
 *   and the rest is checked: writing a file is not running it. Variable expansion past
 *   EXPANSION_FACTOR times a string's length fails closed (`too_large`).
 * - Case: case-insensitive on darwin and win32 (their default filesystems), exact elsewhere. On
 *   win32 a trailing dot/space and an NTFS stream suffix (`credentials::$DATA`) are removed from
 *   each segment, as Windows does; both separators and drive letters are understood.
 * - Unicode: both sides are compared in NFC (macOS filesystems are normalization-insensitive;
 *   elsewhere it only blocks more). A non-ASCII string is also tried under NFKC and with format
 *   characters (zero-width space, soft hyphen, …) removed, so fullwidth `～／．ｓｓｈ` matches.
 *   Look-alikes NFKC does not fold (Cyrillic `ѕ` for `s`) name a different file on disk: no match.
 * - Symlinks: each candidate is also resolved physically — the longest existing prefix through
 *   realpath, a dangling symlink right after it followed through readlink (writing through it
 *   would create its target), the rest appended — so a symlink into a protected directory, a
 *   symlinked parent, a file not yet created behind a symlink, and `link/..` (which the kernel
 *   resolves from the link's target, not textually) are caught. This is done for every whole
 *   string value and every word that looks like a path (holds a separator or starts with `~`,
 *   `.`, `$`, `%`); bare words inside longer strings, and keys that are bare words, are compared
 *   lexically only; text longer than PATH_MAX is never resolved. On the real filesystem (POSIX,
 *   nothing injected) a path is first walked from the root with one `lstat` per prefix: while no
 *   prefix is a symlink the path is its own real path (up to the first missing entry or file),
 *   and a name directly under a working directory costs one `lstat` plus one `realpath` of that
 *   directory per call; any symlink or failed lookup falls back to the resolution above, so the
 *   result is the same. A directory asked about for LIST_AFTER names is listed once and answers
 *   the rest from its listing; nothing is looked up below a prefix known not to exist; a cold
 *   name (next bullet) under an open directory whose listing shows no symlink is settled without
 *   a lookup of its own (docs/protected-paths.md, "Cost and file-system lookups"). Lookups are memoised within one
 *   `find`, never across calls (a cache would widen the window for swapping a symlink); the
 *   filesystem can still change between this check and the tool's execution, as with any check
 *   made before execution.
 * - Pre-filter (issue 11): a relative word none of whose segments appears in any entry's
 *   compared form (`hotSegments`) cannot match under a base that is not itself protected, so it
 *   is not joined and compared per base; its physical forms are still resolved (a symlink can
 *   lead anywhere). A glob segment counts when it could stand for no such segment (read as the
 *   shell reads it). Not applied to non-ASCII words, glob policies, a root entry, win32. Plain
 *   words of a long text that are neither hot nor physical are dropped as they are read
 *   (paths/cold-words.ts) when every directory they would be joined with is open.
 * - Prose containing a protected path (`"open ~/.ssh/config"`) is blocked: the spec says any
 *   argument containing a protected path. A word equal to a relative entry (`copy .env.example to
 *   .env`) is likewise blocked. Mere mentions are not (`ssh`, `.sshrc`, `the .ssh folder` when
 *   `cwd` is not the home directory).
 * - Not caught (residual risk, for the sandbox rather than argument inspection): an ancestor of
 *   a protected path, a substitution standing alone as a word whose output is a path at run
 *   time (`cat $(base64 -d …)`) or a variable standing alone whose value cannot be known, a bare
 *   word (no separator, not starting with `.`/`~`) inside a longer string that is itself a
 *   symlink, and hard links made before the policy applied.
 * - Fail closed: arguments nested more than `maxDepth` containers deep (a cycle included), with
 *   more than `maxNodes` values and keys, `maxChars` characters of strings, `maxComparisons`
 *   candidate paths, `maxResolutions` filesystem lookups, `maxBases` working directories, or one
 *   word brace-expanding to more than `maxExpansions` words are not inspected further; `find`
 *   then returns `{reason: 'too_deep' | 'too_large', protectedPath: '', detail}` at the argument
 *   where the limit was reached, and the evaluator must block. A match found before a limit is
 *   returned as a match.
 */

export type ProtectedPathSource = 'policy' | 'auto';

/** A string in the arguments names a protected path. */
export interface ProtectedPathMatch {
  reason: 'protected_path';
  /** The policy entry as written, or the automatically protected path (policy file, data home). */
  protectedPath: string;
  source: ProtectedPathSource;
  /** Where the string is, e.g. `args.files[2].path`, `args.command`, `args["~/.ssh/x"]`. */
  argumentPath: string;
  /** `argumentPath` without the leading `args` (`files[2].path`): §6.2.2 `violations[].field`. */
  field: string;
  /** Whether the string was an object key or a value. */
  location: 'value' | 'key';
  /** The string searched (cut to 1,024 characters). */
  value: string;
  /** The normalised path that matched. */
  candidate: string;
  /** `realpath` when only the symlink-resolved form matched. */
  via: 'lexical' | 'realpath';
}

/** The arguments could not be inspected completely; the evaluator must block (fail closed). */
export interface UninspectableArguments {
  /** `unknowable`: output that cannot be known makes up part of a path in a string run as a command. */
  reason: 'too_deep' | 'too_large' | 'unknowable';
  protectedPath: '';
  source: 'limit';
  /** Where the limit was reached. */
  argumentPath: string;
  field: string;
  location: 'value' | 'key';
  value: '';
  /** Which limit, in words. */
  detail: string;
}

export type ProtectedPathFinding = ProtectedPathMatch | UninspectableArguments;

/** What `find` knows of the call besides its arguments. */
export interface ArgumentContext {
  /** The tool called, as the agent sent it: decides which strings are run as commands (paths/executed.ts). */
  tool: string;
}

export interface ProtectedPathLimits {
  /** Nesting of objects/arrays below the arguments object. */
  maxDepth: number;
  /** Values plus object keys visited. */
  maxNodes: number;
  /** Total UTF-16 code units of all strings (values and keys). */
  maxChars: number;
  /** realpath calls in one `find`. */
  maxResolutions: number;
  /** Words produced by brace expansion of one word. */
  maxExpansions: number;
  /** Distinct candidate paths compared (each relative word once per base directory). */
  maxComparisons: number;
  /** Directories one argument sees besides the path bases: `cd`/`-C` targets and directory-like siblings. */
  maxBases: number;
  /** Levels of nested scripts read again (`bash -c '…'`, `$(…)` inside `$(…)`). */
  maxShellDepth: number;
}

export const DEFAULT_PROTECTED_PATH_LIMITS: Readonly<ProtectedPathLimits> = Object.freeze({
  maxDepth: 64,
  maxNodes: 100_000,
  maxChars: 4 * 1024 * 1024,
  maxResolutions: 10_000,
  maxExpansions: 1024,
  maxComparisons: 1_000_000,
  maxBases: 64,
  maxShellDepth: 4,
});

export interface ProtectedPathMatcherOptions {
  /** Absolute home directory for `~` and `$HOME`. */
  homeDir: string;
  /** Absolute directory relative paths are resolved against (the MCP server's working directory). */
  cwd: string;
  /**
   * Further directories the server may resolve relative paths against (its command line's
   * directories, MCP roots); read at every `find`, so roots announced later count at once.
   */
  pathBases?: PathBases;
  /**
   * The environment the server's commands run with (it inherits the proxy's). Variables a
   * command string does not assign expand from it, an unset one to nothing; without it they
   * cannot be known (docs/protected-paths.md, "Shell variables").
   */
  environment?: Environment;
  /** Absolute paths protected regardless of the policy: the policy file (§10.1) and the data home. */
  alwaysProtect?: readonly string[];
  /** Resolves symlinks; null when the path does not exist. Default: `fs.realpathSync.native`. */
  realpath?: (p: string) => string | null;
  /**
   * The target of `p` when `p` is a symlink, else null; used to follow dangling symlinks (whose
   * target does not exist yet, so realpath fails). Default: `fs.readlinkSync` — or, when only
   * `realpath` is injected, "never a symlink", so an injected realpath alone describes the world.
   */
  readlink?: (p: string) => string | null;
  /** Path flavour and case rules; default `process.platform`. */
  platform?: NodeJS.Platform;
  limits?: Partial<ProtectedPathLimits>;
}

function defaultRealpath(p: string): string | null {
  try {
    // existsSync first: a failing realpath throws, and a thrown error costs several times the syscall.
    return existsSync(p) ? realpathSync.native(p) : null;
  } catch {
    return null;
  }
}

function defaultReadlink(p: string): string | null {
  try {
    return lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ? readlinkSync(p) : null;
  } catch {
    return null;
  }
}

const noReadlink = (): null => null;

interface Key {
  /** Comparison form: `/` separators, NFC, case-folded where the platform is case-insensitive. */
  key: string;
  /** `key` with a trailing `/`, for containment. */
  prefix: string;
}

/** Matches where one of `segments` is a whole `/`-separated segment of a string. */
function segmentPattern(segments: ReadonlySet<string>): RegExp {
  const names = [...segments].filter((seg) => seg !== '').map((seg) => seg.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'));
  return names.length === 0 ? /(?!)/ : new RegExp(`(?:^|/)(?:${names.join('|')})(?=/|$)`);
}

/** Segments of a comparison key, for glob matching: the root is the first (empty on POSIX). */
function keySegments(key: string): string[] {
  if (key === '/') return [''];
  return (key.endsWith('/') ? key.slice(0, -1) : key).split('/');
}

interface Entry {
  written: string;
  source: ProtectedPathSource;
  anywhere: boolean;
  glob: boolean;
  /** Absolute entries: the lexical and the real form (with their segments, for globs). */
  keys: (Key & { segs: string[] })[];
  /** Anywhere entries: the segments, and `/seg/seg/` for the fast substring test. */
  segs: string[];
  needle: string;
  /** Expanded form, before realpath, kept for refresh(). */
  expanded: string;
}

interface Site {
  parts: readonly (string | number)[];
  location: 'value' | 'key';
  value: string;
}

/**
 * The directories an argument sees besides the path bases: directory-like values of its own
 * object or array (and of the containers around it), and the `cd` targets of its strings.
 */
interface Scope {
  parent: Scope | null;
  /** Absolute, or relative to the bases and to the directories before it. */
  dirs: string[];
  /** `dirs` of this scope and its parents resolved, once the walk is over. */
  resolved?: readonly string[];
}

interface Deferred {
  form: string;
  physical: boolean;
  /** `form` is one ASCII name without glob characters (`read`, `q1.csv`): see `plainNames`. */
  word?: boolean;
  /** `form` holds CURRENT_DIR (`$PWD`, `$(pwd)`): each base is put in its place. */
  pwd?: boolean;
  site: Site;
  scope?: Scope;
  /**
   * No segment of `form` names a segment of any entry (see `hotSegments`), so under a base that
   * is not itself protected it cannot match lexically; computed once per word, not per base.
   */
  cold?: boolean;
  /** Physical queue only: `form` is a cold word joined to a base, already in normal form. */
  coldJoin?: boolean;
  /** Physical queue only: where the base `form` was joined to ends (see `physicalByLstat`). */
  joinAt?: number;
  /** `form` without leading `./` segments (see `joinAndCheck`), once asked. */
  bare?: string;
}

/** One directory's entries by name (`lstatKind` results), read once per `find`. */
interface Listing {
  kinds: Map<string, number>;
  /** The entries' names lower-cased: a name absent from `kinds` but present here differs only in case. */
  folded: Set<string>;
  /** No entry has a non-ASCII name, so an ASCII name absent from `kinds` surely does not exist. */
  exact: boolean;
}

class LimitReached extends Error {
  constructor(
    readonly reason: 'too_deep' | 'too_large' | 'unknowable',
    readonly detail: string,
  ) {
    super(detail);
  }
}

interface Scan {
  nodes: number;
  chars: number;
  resolutions: number;
  /** Lookups made so far (see `lastLookups`). */
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
  /** `plainNames` tables of scope directories, computed when first needed. */
  /** Scope directories (and bases) that are not themselves protected: see `hotSegments`. */
  openDirs: Map<string, boolean>;
  /** Whether every base is open, once asked (see `basesOpen`). */
  basesOpen?: boolean;
  names: Map<string, Set<string> | null>;
  parts: (string | number)[];
  location: 'value' | 'key';
  /** The tool runs its arguments, or its name is not known: every string is a command. */
  executingTool: boolean;
  /** Keys on the current path that name a command (`command`, `args`, …): strings below them are commands. */
  commandKeys: number;
}

/** A string that is exactly one candidate path (see `scanString`). */
const FAST_WORD = /^[A-Za-z0-9_.+/][A-Za-z0-9_.+/-]*$/;
/** An absolute POSIX path that `resolve` would change: `//`, `.`/`..` segments, a trailing `/`. */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;
/** A relative form that joining to a normal base would not leave normal: `.`/`..` segments, `//`, a trailing `/`. */
const NOT_NORMAL_RELATIVE = /(?:^|\/)\.\.?(?:\/|$)|\/\/|\/$/;
/** A word `expand` returns unchanged: no URL, percent, backslash, brace, `~` or `$`. */
const EXPAND_PLAIN = /^[A-Za-z0-9_.+/,@=-]*$/;
const SIMPLE = /^[A-Za-z0-9._\-/+,@]*$/;
const NON_ASCII = /[\u0080-\uffff]/;
const GLOB = /[*?[]/;
/** A path segment holding a glob character (group 1), matched from the segment's start only: linear. */
const GLOB_SEGMENT = /(?:^|\/)([^/*?[]*[*?[][^/]*)/;
/** What keeps a relative form from being one plain name under its base: separators, globs, non-ASCII (folded differently). */
const BARE_NAME_EXCLUDED = /[/\\*?[\u0080-\uffff]/;
const PERCENT = /%[0-9A-Fa-f]{2}/;
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:\/\//;
const FILE_URL = /^file:/i;
const NAIVE_SPLIT = /[\s"'`|&;<>(){}[\],]+/;
const HOME_VARS = /\$\{HOME\}|\$HOME(?![A-Za-z0-9_])|%USERPROFILE%|%HOME%|\$env:USERPROFILE(?![A-Za-z0-9_])|\$env:HOME(?![A-Za-z0-9_])/gi;
const PWD_VARS = /\$\{PWD\}|\$PWD(?![A-Za-z0-9_])/g;
const FORMAT_CHARS = /\p{Cf}/gu;
/** A value that may name a directory under any key: absolute, home-relative, a file: URL. */
const DIR_START = /^(?:[~/$%\\]|[A-Za-z]:|file:)/i;
const VALUE_CUT = 1024;
/** `lstatKind` results. */
const KIND_MISSING = 0;
const KIND_DIRECTORY = 1;
const KIND_FILE = 2;
const KIND_SYMLINK_OR_ERROR = 3;
/** A listed entry whose type the listing did not give: ask lstat. */
const KIND_UNKNOWN = 4;
/** Names asked about in one directory before it is listed instead (see `listedKind`). */
const LIST_AFTER = 8;
/** Entries past which a directory is not listed: lstat per name is cheaper than reading it all. */
const MAX_LISTING = 4096;
/** A directory this size or smaller is read in one readdir (see `listDirectory`). */
const SMALL_DIRECTORY_BYTES = 16 * 1024;
const PATH_MAX = 4096;
/** Longest word brace expansion is applied to; a longer one that needs it fails closed. */
const MAX_BRACE_WORD = 16_384;
/** A word that is nothing but a name: no variants to derive. */
const WORD_PLAIN = /^[A-Za-z0-9_]+$/;
/** Argument names whose value is a working directory for the other arguments' relative paths. */
const DIR_KEY = /(?:cwd|dir|directory|folder|root|workspace|base)$/i;

export class ProtectedPathMatcher {
  private readonly path: typeof posix;
  private readonly win: boolean;
  private readonly fold: boolean;
  private readonly home: string;
  private readonly cwd: string;
  private readonly rp: (p: string) => string | null;
  private readonly rl: (p: string) => string | null;
  /** Neither realpath nor readlink injected: the real filesystem, so `physicalByLstat` may be used. */
  private readonly realFs: boolean;
  private readonly limits: ProtectedPathLimits;
  private entries: Entry[] = [];
  private globEntries = false;
  private readonly pathBases: PathBases | null;
  private readonly environment: Environment | undefined;
  /** The `pathBases` revision `bases` was computed from. */
  private basesRevision = -1;
  /** `cwd`, the path bases, and each with symlinks resolved where that differs. */
  private bases: string[] = [];
  /**
   * For each of `bases`: the folded names `w` for which `base/w` matches an entry (built by
   * `refresh`, from the entries alone). A plain name not in the set cannot match under that
   * base, so it is not compared entry by entry. No table for a base that is itself protected,
   * with glob characters, when the policy has glob entries, or on win32.
   */
  private plainNames = new Map<string, Set<string>>();
  /**
   * Every segment of every compared entry form, folded. A path under a base that is not itself
   * protected can only match an entry if one of the segments it adds after the base is one of
   * these (an absolute entry below the base starts with such a segment; an anywhere entry's last
   * segment must lie past the base's end). So a relative word with no such segment is settled
   * by one set lookup per segment instead of a join, a resolve and a comparison per base: the
   * cheap lexical pre-filter that keeps the scan linear (issue 11). Null when the pre-filter
   * does not apply: glob entries, an entry at the root, win32 (its segment rules differ).
   */
  private hotSegments: Set<string> | null = null;
  /** The pre-filter over `hotSegments` that drops cold plain words unhashed (paths/cold-words.ts). */
  private coldWords: ColdWords | null = null;
  /**
   * Filesystem lookups (lstat, realpath, readlink, directory listings) the last `find` made: the
   * benchmark prints them beside the decision, since at small sizes they, not the reading, set
   * its cost (issue 11).
   */
  lastLookups = 0;
  /** Finds a whole segment equal to a hot segment (see `isCold`). */
  private hotSegmentPattern: RegExp | null = null;

  constructor(patterns: readonly string[], options: ProtectedPathMatcherOptions) {
    const platform = options.platform ?? process.platform;
    this.win = platform === 'win32';
    this.path = this.win ? win32 : posix;
    this.fold = platform === 'win32' || platform === 'darwin';
    if (!this.path.isAbsolute(options.homeDir)) throw new TypeError(`homeDir must be absolute: ${options.homeDir}`);
    if (!this.path.isAbsolute(options.cwd)) throw new TypeError(`cwd must be absolute: ${options.cwd}`);
    this.home = this.path.resolve(options.homeDir);
    this.cwd = this.path.resolve(options.cwd);
    this.pathBases = options.pathBases ?? null;
    this.environment = options.environment;
    this.rp = options.realpath ?? defaultRealpath;
    this.rl = options.readlink ?? (options.realpath ? noReadlink : defaultReadlink);
    this.realFs = !options.realpath && !options.readlink && !this.win;
    this.limits = { ...DEFAULT_PROTECTED_PATH_LIMITS, ...options.limits };

    const entries: Entry[] = [];
    for (const p of patterns) {
      if (typeof p !== 'string') throw new TypeError('protected_paths entries must be strings');
      const entry = this.compile(p, 'policy');
      if (entry) entries.push(entry);
    }
    for (const p of options.alwaysProtect ?? []) {
      if (typeof p !== 'string') throw new TypeError('alwaysProtect entries must be strings');
      const entry = this.compile(p, 'auto');
      if (entry) entries.push(entry);
    }
    this.entries = entries;
    this.globEntries = entries.some((e) => e.glob);
    this.refresh();
  }

  /** The compiled entries, for diagnostics: as written and the absolute forms compared. */
  describe(): { protectedPath: string; source: ProtectedPathSource; anywhere: boolean; compared: string[] }[] {
    return this.entries.map((e) => ({
      protectedPath: e.written,
      source: e.source,
      anywhere: e.anywhere,
      compared: e.anywhere ? [e.segs.join('/')] : e.keys.map((k) => k.key),
    }));
  }

  /** Recomputes the real paths of the entries (after the filesystem changed under one). */
  refresh(): void {
    const scan = this.newScan(Number.POSITIVE_INFINITY);
    for (const entry of this.entries) {
      if (entry.anywhere) continue;
      const lexical = this.makeKey(this.path.resolve(entry.expanded));
      const real = this.makeKey(this.physical(entry.expanded, scan));
      const keys = real.key === lexical.key ? [lexical] : [lexical, real];
      entry.keys = keys.map((k) => ({ ...k, segs: keySegments(k.key) }));
    }
    this.hotSegments = this.collectHotSegments();
    this.coldWords = this.hotSegments === null ? null : new ColdWords(this.hotSegments, this.fold);
    this.hotSegmentPattern = this.hotSegments === null ? null : segmentPattern(this.hotSegments);
    this.refreshBases(scan);
  }

  /** Recomputes `bases` and their name tables (after a refresh, or when the path bases changed). */
  private refreshBases(scan: Scan): void {
    const bases: string[] = [];
    const add = (dir: string): void => {
      if (!bases.includes(dir)) bases.push(dir);
    };
    for (const dir of [this.cwd, ...(this.pathBases?.list() ?? [])]) {
      const abs = this.path.resolve(dir);
      add(abs);
      add(this.physical(abs, scan));
    }
    this.bases = bases;
    this.basesRevision = this.pathBases?.revision ?? 0;
    this.plainNames = new Map();
    for (const base of bases) {
      const names = this.namesUnder(base);
      if (names !== null) this.plainNames.set(base, names);
    }
  }

  private collectHotSegments(): Set<string> | null {
    if (this.win || this.globEntries) return null;
    const hot = new Set<string>();
    for (const entry of this.entries) {
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

  /** See `hotSegments`: an ASCII word none of whose segments an entry names, nor could stand for one as a glob. */
  private isCold(form: string): boolean {
    const hot = this.hotSegments;
    if (hot === null || NON_ASCII.test(form) || form.includes(CURRENT_DIR)) return false;
    const folded = this.fold ? form.toLowerCase() : form;
    // Native scans rather than a slice and a lookup per segment (a long text has thousands).
    if (this.hotSegmentPattern!.test(folded)) return false;
    // A glob segment is cold when it names no hot segment either (as the comparison would read
    // it: a candidate wildcard does not match a leading dot): every name it could stand for is
    // cold. `**` may stand for several segments, so it is hot whenever `*` is.
    if (!GLOB.test(folded)) return true;
    const globs = new RegExp(GLOB_SEGMENT.source, 'g');
    for (let m = globs.exec(folded); m !== null; m = globs.exec(folded)) if (this.globNamesHot(m[1]!)) return false;
    return true;
  }

  private globNamesHot(seg: string): boolean {
    for (const name of this.hotSegments!) if (wildcard(seg === '**' ? '*' : seg, name, true)) return true;
    return false;
  }

  /** A base or scope directory that is not itself protected (else every word under it matches). */
  private openDir(dir: string, scan: Scan): boolean {
    let open = scan.openDirs.get(dir);
    if (open === undefined) {
      open = this.matchKey(this.makeKey(dir), GLOB.test(dir)) === null;
      scan.openDirs.set(dir, open);
    }
    return open;
  }

  /** Every path base is open (see `openDir`): once per call, the bases can change between calls. */
  private basesOpen(scan: Scan): boolean {
    scan.basesOpen ??= scan.bases.every((base) => this.openDir(base, scan));
    return scan.basesOpen;
  }

  private namesUnder(base: string): Set<string> | null {
    if (this.win || this.globEntries || GLOB.test(base)) return null;
    const b = this.makeKey(base);
    // Everything under the base matches: the ordinary comparison finds and reports it.
    if (this.matchKey(b, false)) return null;
    const names = new Set<string>();
    for (const entry of this.entries) {
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

  /**
   * §4.3 step 2. Returns the first finding, or null when no string in `args` names a protected
   * path. A `too_deep`/`too_large`/`unknowable` finding means the arguments were not fully
   * inspected: block. `context.tool` narrows the `unknowable` rule to strings run as commands;
   * without it every string is one.
   */
  find(args: unknown, context?: ArgumentContext): ProtectedPathFinding | null {
    this.lastLookups = 0;
    if (this.entries.length === 0) return null;
    if (this.pathBases !== null && this.pathBases.revision !== this.basesRevision) this.refreshBases(this.newScan(Number.POSITIVE_INFINITY));
    const scan = this.newScan(this.limits.maxResolutions);
    scan.executingTool = context === undefined || isExecutingTool(context.tool);
    try {
      const hit = this.walk(args, 0, scan);
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
        const local = d.scope === undefined ? [] : this.scopeDirs(d.scope, scan);
        for (let k = 0; k < scan.bases.length + local.length; k += 1) {
          const inScope = k >= scan.bases.length;
          const base = inScope ? local[k - scan.bases.length]! : scan.bases[k]!;
          const found = this.joinAndCheck(d, base, inScope, scan);
          if (found) return found;
        }
      }
      for (const d of scan.physical) {
        scan.parts = d.site.parts as (string | number)[]; // the walk is over: nothing mutates it now
        scan.location = d.site.location;
        const real = this.physical(d.form, scan, 0, d.joinAt);
        // A cold word under an open base whose real path is its lexical one: settled already.
        if (d.coldJoin === true && real === d.form) continue;
        // Already compared, with the same key and glob flag, as a lexical candidate: no match.
        if (scan.lexSeen.has(real) && !GLOB.test(real) && !GLOB.test(d.form)) continue;
        const key = this.makeKey(real);
        const entry = this.matchKey(key, GLOB.test(d.form));
        if (entry) return this.report(entry, d.site, real, 'realpath');
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

  /** One relative word under one base, compared lexically; the physical join is queued. */
  private joinAndCheck(d: Deferred, base: string, inScope: boolean, scan: Scan): ProtectedPathMatch | null {
    if (d.pwd !== true) {
      d.cold ??= this.isCold(d.form);
      if (d.cold && this.openDir(base, scan)) {
        if (d.physical) {
          // `./docs/a.md` is `docs/a.md` to the kernel: without its leading `./` the word can be
          // settled by listings, and its join is already in normal form.
          const rel = (d.bare ??= withoutDotPrefix(d.form));
          if (!this.settledByListing(base, rel, scan)) scan.physical.push({ form: this.joinRaw(base, rel), physical: true, site: d.site, coldJoin: !NOT_NORMAL_RELATIVE.test(rel), joinAt: base.length });
        }
        return null;
      }
    }
    const form = d.pwd === true ? d.form.replaceAll(CURRENT_DIR, base) : d.form;
    const plain = !this.win && d.pwd !== true && form !== '.' && form !== '..' && !form.includes('/');
    // A single name under a normalised absolute base: resolve() would only join them.
    const abs = plain ? this.joinRaw(base, form) : this.path.resolve(base, form);
    let names: Set<string> | undefined;
    if (d.word === true) {
      if (!inScope) names = this.plainNames.get(base);
      else {
        if (!scan.names.has(base)) scan.names.set(base, this.namesUnder(base));
        names = scan.names.get(base) ?? undefined;
      }
    }
    const found = this.checkLexical(abs, scan, names === undefined ? undefined : this.fold ? form.toLowerCase() : form, names);
    if (found) return this.report(found.entry, d.site, found.path, 'lexical');
    if (d.physical) {
      const absolute = this.path.isAbsolute(form);
      scan.physical.push({ form: absolute ? form : this.joinRaw(base, form), physical: true, site: d.site, joinAt: absolute ? undefined : base.length });
    }
    return null;
  }

  /**
   * The directories of a scope and its parents, resolved: absolute ones as they are, relative
   * ones against the path bases and the directories before them (`cd a && cd b`), each also
   * with symlinks resolved. More than `maxBases` fails closed.
   */
  private scopeDirs(scope: Scope, scan: Scan): readonly string[] {
    if (scope.resolved !== undefined) return scope.resolved;
    const parent = scope.parent === null ? [] : this.scopeDirs(scope.parent, scan);
    if (scope.dirs.length === 0) {
      scope.resolved = parent;
      return parent;
    }
    // The usual container: one absolute directory-like value beside its files, and no
    // directories around it (a long list of `{dir, file}` pairs makes one scope per pair).
    if (parent.length === 0 && scope.dirs.length === 1 && this.limits.maxBases >= 2 && this.path.isAbsolute(scope.dirs[0]!)) {
      return (scope.resolved = this.oneDirectory(scope.dirs[0]!, scan));
    }
    const list = [...parent];
    const seen = new Set<string>([...scan.bases, ...parent]);
    const add = (dir: string): void => {
      if (seen.has(dir)) return;
      if (list.length >= this.limits.maxBases) throw new LimitReached('too_large', `more than ${this.limits.maxBases} working directories named in the arguments`);
      seen.add(dir);
      list.push(dir);
    };
    const own: string[] = [];
    // A directory named again (`cd src` in every line of a long script) is resolved once: each
    // relative repeat would otherwise nest one level deeper (src/src/…) and exhaust `maxBases`.
    for (const dir of new Set(scope.dirs)) {
      const before = list.length;
      if (this.path.isAbsolute(dir)) add(this.path.resolve(dir));
      else for (const base of [...scan.bases, ...list]) add(this.path.resolve(base, dir));
      own.push(...list.slice(before));
    }
    for (const dir of own) if (!GLOB.test(dir)) add(this.physical(dir, scan));
    for (const dir of list) scan.baseSet.add(dir);
    scope.resolved = list;
    return list;
  }

  /** `scopeDirs` of a scope whose only directory is the absolute `dir`, without its sets and copies. */
  private oneDirectory(dir: string, scan: Scan): string[] {
    const lexical = this.path.resolve(dir);
    if (scan.bases.includes(lexical)) return [];
    const list = [lexical];
    if (!GLOB.test(lexical)) {
      const real = this.physical(lexical, scan);
      if (real !== lexical && !scan.bases.includes(real)) list.push(real);
    }
    for (const d of list) scan.baseSet.add(d);
    return list;
  }

  // ---------------------------------------------------------------------------------------------
  // Entries

  private compile(written: string, source: ProtectedPathSource): Entry | null {
    let t = written.trim();
    while (/[\\/]\*\*?$/.test(t) && t.length > 2) t = t.replace(/[\\/]\*\*?$/, '');
    if (t === '') return null;
    const expanded = this.expandHome(t);
    const normal = this.path.normalize(expanded).replace(/\\/g, '/');
    const anchored = this.path.isAbsolute(expanded) || source === 'auto' || normal === '.' || normal === '..' || normal.startsWith('../');
    if (anchored) {
      const abs = this.path.resolve(this.cwd, expanded);
      return { written, source, anywhere: false, glob: GLOB.test(abs), keys: [], segs: [], needle: '', expanded: abs };
    }
    const folded = this.foldText(normal.replace(/^(?:\.\/)+/, ''));
    const segs = folded.split('/').filter((s) => s !== '' && s !== '.');
    const canon = this.win ? segs.map(winSegment) : segs;
    return { written, source, anywhere: true, glob: GLOB.test(normal), keys: [], segs: canon, needle: `/${canon.join('/')}/`, expanded: normal };
  }

  // ---------------------------------------------------------------------------------------------
  // Walking the arguments

  private newScan(maxResolutions: number): Scan {
    const scan: Scan = {
      nodes: 0,
      chars: 0,
      resolutions: maxResolutions,
      lookups: 0,
      walkedLongest: 0,
      comparisons: Number.isFinite(maxResolutions) ? this.limits.maxComparisons : Number.POSITIVE_INFINITY,
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
      bases: this.bases,
      baseSet: new Set(this.bases),
      scope: { parent: null, dirs: [] },
      names: new Map(),
      openDirs: new Map(),
      parts: [],
      location: 'value',
      executingTool: true,
      commandKeys: 0,
    };
    return scan;
  }

  private walk(value: unknown, depth: number, scan: Scan): ProtectedPathMatch | null {
    scan.nodes += 1;
    if (scan.nodes > this.limits.maxNodes) throw new LimitReached('too_large', `more than ${this.limits.maxNodes} values in the arguments`);
    if (typeof value === 'string') return this.scanString(value, scan);
    if (value === null || typeof value !== 'object') return null;
    if (depth >= this.limits.maxDepth) throw new LimitReached('too_deep', `arguments nested deeper than ${this.limits.maxDepth} levels`);
    const outer = scan.scope;
    scan.scope = this.containerScope(value as object, outer);
    const hit = this.walkContainer(value as object, depth, scan, outer);
    scan.scope = outer;
    return hit;
  }

  /**
   * A container's scope: its directory-like values under any key (`{"path": "~", "filename":
   * ".ssh/id_rsa"}`) — absolute or home-relative values, and relative values of keys named like
   * a directory (`cwd`, `dir`, …) — are directories for every relative value inside it.
   */
  private containerScope(value: object, parent: Scope): Scope {
    const scope: Scope = { parent, dirs: [] };
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'string') this.collectDir(item, false, scope);
    } else {
      for (const [key, item] of Object.entries(value)) if (typeof item === 'string') this.collectDir(item, DIR_KEY.test(key), scope);
    }
    return scope.dirs.length === 0 ? parent : scope;
  }

  private collectDir(value: string, keyed: boolean, scope: Scope): void {
    if (value.length > PATH_MAX) return;
    const t = value.trim();
    if (t === '' || /[\r\n]/.test(t)) return;
    if (FAST_WORD.test(t)) {
      if (keyed || t.charCodeAt(0) === 0x2f /* / */) scope.dirs.push(t);
      return;
    }
    if (!keyed && !DIR_START.test(t)) return;
    for (const form of this.expand(t)) {
      if (GLOB.test(form) || form.includes(CURRENT_DIR) || form.includes(UNKNOWN_OUTPUT)) continue;
      if (keyed || this.path.isAbsolute(form)) scope.dirs.push(form);
    }
  }

  /** `outer`: the scope keys are read in (a key is not a file inside its sibling values). */
  private walkContainer(value: object, depth: number, scan: Scan, outer: Scope): ProtectedPathMatch | null {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        scan.parts.push(i);
        const hit = this.walk(value[i], depth + 1, scan);
        if (hit) return hit;
        scan.parts.pop();
      }
      return null;
    }
    for (const key of Object.keys(value)) {
      scan.parts.push(key);
      scan.location = 'key';
      scan.nodes += 1;
      if (scan.nodes > this.limits.maxNodes) throw new LimitReached('too_large', `more than ${this.limits.maxNodes} values in the arguments`);
      const inner = scan.scope;
      scan.scope = outer;
      const keyHit = this.scanString(key, scan);
      scan.scope = inner;
      if (keyHit) return keyHit;
      scan.location = 'value';
      // Classified once per key, not per string below it: the walk stays linear.
      const command = !scan.executingTool && isCommandKey(key) ? 1 : 0;
      scan.commandKeys += command;
      const hit = this.walk((value as Record<string, unknown>)[key], depth + 1, scan);
      if (hit) return hit;
      scan.commandKeys -= command;
      scan.parts.pop();
    }
    return null;
  }

  private scanString(s: string, scan: Scan): ProtectedPathMatch | null {
    scan.chars += s.length;
    if (scan.chars > this.limits.maxChars) throw new LimitReached('too_large', `more than ${this.limits.maxChars} characters of strings in the arguments`);
    if (s.trim() === '') return null;
    let site: Site | null = null;
    const isValue = scan.location === 'value';
    if (!this.win && s.length <= PATH_MAX && FAST_WORD.test(s)) {
      // One word that `words` and `expand` would return unchanged as its only form: no blanks,
      // quotes, `=`, `:`, `,`, `@`, `%`, `~`, `$`, `\`, braces, globs, non-ASCII, leading `-`.
      const physical = isValue || s.includes('/') || s.charCodeAt(0) === 0x2e; /* . */
      site = { parts: [...scan.parts], location: scan.location, value: s };
      if (s.charCodeAt(0) === 0x2f /* / */) {
        const abs = NOT_NORMAL.test(s) ? posix.resolve(s) : s;
        const hit = this.checkLexical(abs, scan);
        if (hit) return this.report(hit.entry, site, hit.path, 'lexical');
        if (physical) scan.physical.push({ form: s, physical, site });
      } else {
        scan.relative.push({ form: s, physical, site, word: s !== '.' && s !== '..' && !s.includes('/'), scope: scan.scope });
      }
      return null;
    }
    // The string's own `cd` targets are directories for its words only, not for its siblings'.
    const own: Scope = { parent: scan.scope, dirs: [] };
    const words = this.words(s, own, scan.executingTool || scan.commandKeys > 0, this.basesOpen(scan));
    const scope = own.dirs.length > 0 ? own : scan.scope;
    for (const [word, isWhole] of words) {
      for (const form of this.expand(word)) {
        // Longer than PATH_MAX, or with a line break in a whole value: text, not a path to resolve.
        const physical = form.length <= PATH_MAX && ((isWhole && isValue && !/[\r\n]/.test(form)) || /[\\/]/.test(form) || /^[~.$%]/.test(word));
        if (this.path.isAbsolute(form)) {
          const abs = this.path.resolve(this.cwd, form);
          const hit = this.checkLexical(abs, scan);
          site ??= { parts: [...scan.parts], location: scan.location, value: s };
          if (hit) return this.report(hit.entry, site, hit.path, 'lexical');
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

  /**
   * Candidate words of one string, each flagged whether it is the whole (trimmed) string.
   * `executed`: the string is run as a command (see `shellWords`).
   */
  private words(s: string, scope: Scope, executed: boolean, skipCold: boolean): Map<string, boolean> {
    const out = new Map<string, boolean>();
    const whole = s.trim();
    out.set(whole, true);
    if (SIMPLE.test(s)) {
      if (s.includes(',') || s.startsWith('@') || s.startsWith('-')) this.wordVariants(whole, out);
      return out;
    }
    const variants = [s];
    const ascii = !NON_ASCII.test(s);
    if (!ascii) {
      const nfkc = s.normalize('NFKC');
      const visible = nfkc.replace(FORMAT_CHARS, '');
      if (nfkc !== s) variants.push(nfkc);
      if (visible !== nfkc) variants.push(visible);
    }
    // A word repeated in a long text (`cat`, `&&`, a name used on every line) gets its variants
    // once: they depend on the word alone.
    const varied = new Set<string>();
    const vary = (w: string): void => {
      if (varied.has(w)) return;
      varied.add(w);
      this.wordVariants(w, out);
    };
    for (const v of variants) {
      const t = v.trim();
      if (!out.has(t)) out.set(t, true);
      // The whole string's own variants only when it is one word: a long text has none worth the cost.
      if (!/\s/.test(t)) vary(t);
      const shellWords = this.shellWords(v, scope, executed);
      // Cold plain words (paths/cold-words.ts) are dropped before they are hashed, when every
      // directory they would be joined with is open: the bases (checked per call) and the
      // container's directory-like values (each is a word of its own, reported itself when
      // protected). Not when the string names directories that are no word of it (a bare `cd`
      // goes to $HOME, `cd -` to $OLDPWD, $CDPATH): `scope` then has directories of its own.
      const cold = skipCold && scope.dirs.length === 0 ? this.coldWords : null;
      for (const w of shellWords) if (cold === null || !cold.isColdPlain(w, 0, w.length)) vary(w);
      if (cold !== null && ascii) cold.naiveWords(v, vary);
      else for (const w of v.split(NAIVE_SPLIT)) vary(w);
    }
    return out;
  }

  private wordVariants(w: string, out: Map<string, boolean>): void {
    if (w === '') return;
    addWord(out, w);
    if (WORD_PLAIN.test(w)) return;
    const stripped = stripPunctuation(w);
    if (stripped !== w) addWord(out, stripped);
    // After the first `=` to the end (a value may hold `=`), and each piece between `=`s: linear.
    const eq = w.indexOf('=');
    if (eq !== -1) {
      addWord(out, w.slice(eq + 1));
      for (let i = eq; i !== -1; ) {
        const next = w.indexOf('=', i + 1);
        addWord(out, next === -1 ? w.slice(i + 1) : w.slice(i + 1, next));
        i = next;
      }
    }
    if (w.includes(',')) for (const piece of w.split(',')) addWord(out, piece);
    if (!URL_SCHEME.test(w) || FILE_URL.test(w)) {
      for (let i = w.indexOf(':'); i !== -1; i = w.indexOf(':', i + 1)) {
        const drive = i === 1 && /[A-Za-z]/.test(w[0]!);
        if (drive || !'/~\\$.%'.includes(w[i + 1] ?? '')) continue;
        const end = w.indexOf(':', i + 1);
        addWord(out, end === -1 ? w.slice(i + 1) : w.slice(i + 1, end));
      }
    }
    if (w.startsWith('-')) {
      const i = w.search(/[/~$\\]/);
      if (i > 0) addWord(out, w.slice(i));
    }
  }

  /**
   * Shell words (see paths/shell.ts): nested scripts read again, known substitutions evaluated.
   * `cd`/`pushd`/`-C` targets become directories of the string's scope. An unknowable output
   * that makes up part of a path fails closed when the string is `executed`; otherwise (a
   * file's content, which writing does not run) it is dropped from its word and its directory,
   * as if it stood alone, and the rest is checked.
   */
  private shellWords(s: string, scope: Scope, executed: boolean): string[] {
    const reading = readShell(s, { win: this.win, maxDepth: this.limits.maxShellDepth, expandHome: (w) => this.expandHome(w), environment: this.environment });
    if (reading.overflow !== null) throw new LimitReached('too_large', reading.overflow);
    const unknowable = reading.unknowable[0];
    if (unknowable !== undefined && executed) {
      const shown = unknowable.replaceAll(UNKNOWN_OUTPUT, '$(…)').replaceAll(CURRENT_DIR, '$PWD');
      throw new LimitReached('unknowable', `the path "${shown.slice(0, 200)}" depends on a command's output or a shell variable that cannot be known before it runs`);
    }
    // Each target once, in first-seen order (`scopeDirs` reads them as a set anyway).
    for (const target of new Set(reading.dirs)) {
      let dir = target;
      if (dir.includes(UNKNOWN_OUTPUT)) {
        // Not executed (else it threw above): `cd "$(tool)"` adds no directory.
        dir = dir.replaceAll(UNKNOWN_OUTPUT, '');
        if (dir === '') continue;
      }
      // `cd $PWD/x` is `cd x`; `cd "$(pwd)"` stays where it is.
      const rel = dir.startsWith(CURRENT_DIR) ? `.${dir.slice(1)}` : dir.replaceAll(CURRENT_DIR, this.cwd);
      for (const form of this.expand(rel)) scope.dirs.push(form);
    }
    return reading.words.map((w) => (w.includes(UNKNOWN_OUTPUT) ? w.replaceAll(UNKNOWN_OUTPUT, '') : w));
  }

  /** The path forms of one word: file: URL, percent-decoding, backslashes, braces, `~`/`$HOME`. */
  private expand(word: string): string[] {
    // Nothing below changes a word without `:`, `%`, `\`, `{`, `~` or `$`: most words of a long text.
    if (EXPAND_PLAIN.test(word)) return [word];
    let w = word;
    if (FILE_URL.test(w)) w = fileUrlPath(w);
    else if (URL_SCHEME.test(w)) return [];
    const forms = new Set<string>([w]);
    if (PERCENT.test(w)) {
      let d = w;
      for (let round = 0; round < 3 && PERCENT.test(d); round += 1) {
        d = percentDecode(d);
        forms.add(d);
      }
    }
    if (!this.win) {
      for (const f of [...forms]) {
        if (f.includes('\\')) {
          forms.add(f.replace(/\\/g, '/'));
          forms.add(f.replace(/\\/g, ''));
        }
      }
    }
    const out = new Set<string>();
    for (const f of forms) {
      const braced = this.bracable(f) ? braceExpand(f, this.limits.maxExpansions) : [f];
      for (const b of braced) out.add(this.expandHome(b));
    }
    return [...out];
  }

  /**
   * Whether a word gets brace expansion: one shell word (no blanks) with a group, that could
   * reach a protected path — it holds a separator, `~` or `$`, starts with `.` or `{` (the only
   * ways a one-segment word becomes `.env`), or the policy has glob entries. Compact JSON
   * (`[{"a":1,"b":2},…]`) therefore does not multiply into thousands of words.
   */
  private bracable(f: string): boolean {
    if (!f.includes('{') || !f.includes('}') || /\s/.test(f)) return false;
    if (!(this.globEntries || /[/\\~$]/.test(f) || f.startsWith('.') || f.startsWith('{'))) return false;
    if (f.length > MAX_BRACE_WORD) throw new LimitReached('too_large', `a ${f.length}-character word with brace groups (over ${MAX_BRACE_WORD})`);
    return true;
  }

  private expandHome(p: string): string {
    let out = p;
    if (out.startsWith('~')) {
      const m = /^~([^/\\]*)(.*)$/s.exec(out)!;
      const user = m[1]!;
      const rest = m[2]!;
      if (user === '') out = this.home + rest;
      else if (user === '+') out = this.cwd + rest;
      else if (!GLOB.test(user)) out = this.path.join(this.path.dirname(this.home), user) + rest;
    }
    if (out.includes('$') || out.includes('%')) {
      out = out.replace(HOME_VARS, () => this.home).replace(PWD_VARS, () => this.cwd);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Comparing

  /** `name`/`names`: `abs` is `base/name` for a base with a `plainNames` table. */
  private checkLexical(abs: string, scan: Scan, name?: string, names?: Set<string>): { entry: Entry; path: string } | null {
    if (scan.lexSeen.has(abs)) return null;
    scan.lexSeen.add(abs);
    scan.comparisons -= 1;
    if (scan.comparisons < 0) throw new LimitReached('too_large', `more than ${this.limits.maxComparisons} candidate paths in the arguments`);
    if (names !== undefined && !names.has(name!)) return null;
    const entry = this.matchKey(this.makeKey(abs), GLOB.test(abs));
    return entry ? { entry, path: abs } : null;
  }

  private matchKey(k: Key, glob: boolean): Entry | null {
    // A glob comparison needs the key's segments: split once for every entry, not once per entry
    // (a whole multi-line value is one long key).
    // Only a `**` segment makes `prefixMatch` branch (and revisit pairs): without one each pair is
    // visited once and no memo is allocated per comparison.
    let split: string[] | null = null;
    let starred = false;
    const segments = (): string[] => {
      if (split === null) {
        split = keySegments(k.key);
        starred = glob && split.includes('**');
      }
      return split;
    };
    for (const entry of this.entries) {
      if (entry.anywhere) {
        if (!glob && !entry.glob) {
          if (k.prefix.includes(entry.needle)) return entry;
        } else {
          const segs = segments();
          const branches = starred || (entry.glob && entry.segs.includes('**'));
          for (let start = 0; start < segs.length; start += 1) {
            if (prefixMatch(segs, start, entry.segs, 0, glob, entry.glob, branches ? new Map() : null)) return entry;
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

  private makeKey(abs: string): Key {
    let key = this.foldText(this.win ? abs.replace(/\\/g, '/') : abs);
    if (this.win) {
      const segs = key.split('/');
      for (let i = 1; i < segs.length; i += 1) segs[i] = winSegment(segs[i]!);
      key = segs.join('/');
    }
    if (key.length > 1 && key.endsWith('/') && !(this.win && key.length === 3 && key[1] === ':')) key = key.slice(0, -1);
    const prefix = key.endsWith('/') ? key : `${key}/`;
    return { key, prefix };
  }

  private foldText(s: string): string {
    const nfc = NON_ASCII.test(s) ? s.normalize('NFC') : s;
    return this.fold ? nfc.toLowerCase() : nfc;
  }

  private joinRaw(base: string, rel: string): string {
    return base.endsWith(this.path.sep) ? base + rel : base + this.path.sep + rel;
  }

  /**
   * The physical path of `raw`, resolved as the kernel would: not lexically normalised first (so
   * `link/..` means the link target's parent), the longest existing prefix through realpath, a
   * dangling symlink after it followed through readlink (writing through it creates its target),
   * and whatever does not exist yet appended as written.
   */
  private physical(raw: string, scan: Scan, hops = 0, joinAt?: number): string {
    const memo = scan.physMemo.get(raw);
    if (memo !== undefined) return memo;
    if (this.realFs) {
      const fast = this.physicalByLstat(raw, scan, joinAt);
      if (fast !== null) {
        scan.physMemo.set(raw, fast);
        return fast;
      }
    }
    let out = this.realpath(raw, scan);
    if (out === null) {
      const { root } = this.path.parse(raw);
      const segs = raw
        .slice(root.length)
        .split(this.win ? /[\\/]/ : '/')
        .filter((x) => x !== '' && x !== '.');
      let prefix = root;
      const prefixes: string[] = [root];
      for (let i = 0; i < segs.length - 1; i += 1) {
        prefix = prefix.endsWith(this.path.sep) ? prefix + segs[i]! : prefix + this.path.sep + segs[i]!;
        prefixes.push(prefix);
      }
      for (let i = segs.length - 1; i >= 0 && out === null; i -= 1) {
        const real = this.realpath(prefixes[i]!, scan);
        if (real === null) continue;
        const first = segs[i]!;
        const target = first === '..' || hops >= 40 ? null : this.readlink(this.path.join(real, first), scan);
        if (target !== null) {
          const base = this.path.isAbsolute(target) ? target : this.path.join(real, target);
          const rest = segs.slice(i + 1);
          out = this.physical(rest.length > 0 ? base + this.path.sep + rest.join(this.path.sep) : base, scan, hops + 1);
        } else {
          out = this.path.resolve(real, ...segs.slice(i));
        }
      }
    }
    const found = out ?? raw;
    // Already absolute and normal (the usual realpath answer): resolve() would return it as it is.
    const resolved = !this.win && found.charCodeAt(0) === 0x2f /* / */ && !NOT_NORMAL.test(found) ? found : this.path.resolve(this.cwd, found);
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
  private physicalByLstat(raw: string, scan: Scan, joinAt?: number): string | null {
    if (raw.charCodeAt(0) !== 0x2f /* / */) return null;
    // A name directly under a working directory (`cwd/read`): one lstat of the name and one
    // realpath of the directory (once per call), not an lstat of every ancestor.
    const slash = raw.lastIndexOf('/');
    if (slash > 0 && scan.baseSet.has(raw.slice(0, slash))) {
      const name = raw.slice(slash + 1);
      if (name !== '' && name !== '.' && name !== '..') {
        const kind = this.lstatKind(raw, scan);
        if (kind === KIND_SYMLINK_OR_ERROR) return null;
        const parent = raw.slice(0, slash);
        const dir = kind === KIND_MISSING && this.knownMissing(parent, parent.length, scan) ? null : this.realDirectory(parent, scan);
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
    this.seedWalked(scan);
    // Resume below a directory an earlier walk of this call reached without a symlink (it is its
    // own real path): names sharing a parent walk it once, not once per ancestor per name. A few
    // tries from the end find the usual parent; prefixes longer than any directory walked are
    // skipped unhashed (a whole file's text read as one path would hash most of itself per try).
    let k = this.walkedPrefix(raw, raw.lastIndexOf('/', scan.walkedLongest), normal, scan);
    // Where an earlier walk ended (a name missing, or a file, under walked directories): the
    // walk would end there again and return the path as written.
    if (k === WALK_ENDED) return raw;
    // Or at the directory the word was joined to, or one of its nearest ancestors: a whole value
    // of many lines holds slashes of its own, so the nearest ancestors of its end are no
    // directories (issue 11).
    if (k === 0 && joinAt !== undefined && joinAt > 1 && raw.charCodeAt(joinAt) === 0x2f /* / */) k = this.walkedPrefix(raw, joinAt, false, scan);
    if (k > 0) {
      cur = raw.slice(0, k);
      i = k + 1;
    }
    // A deep path no walk of this call reached usually exists (a file being read): one lstat
    // and one realpath beat an lstat per ancestor. A missing one is walked from the root below.
    if (cur === '' && normal && countSlashes(raw) >= DEEP_PATH) {
      const kind = this.lstatKind(raw, scan);
      if (kind !== KIND_MISSING) return this.realDirectory(raw, scan);
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
          const kind = this.lstatKind(next, scan);
          if (kind === KIND_SYMLINK_OR_ERROR) return null;
          if (kind === KIND_MISSING || kind === KIND_FILE) {
            noteWalk(scan.walkEnds, next, scan);
            return normal ? raw : posix.resolve(next + raw.slice(j));
          }
          noteWalk(scan.walked, next, scan);
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
  private seedWalked(scan: Scan): void {
    if (scan.walkedSeeded === true) return;
    scan.walkedSeeded = true;
    for (const base of scan.bases) {
      if (this.realDirectory(base, scan) !== base) continue;
      // Its own real path: none of its ancestors is a symlink either, so `cd ..` and `../lib`
      // resume at the parent instead of taking an lstat per ancestor from the root.
      for (let k = base.length; k > 0; k = base.lastIndexOf('/', k - 1)) noteWalk(scan.walked, k === base.length ? base : base.slice(0, k), scan);
    }
  }

  /**
   * The end of the first of `raw`'s prefixes ending at the slash `from` or one of the
   * WALK_RESUME_TRIES slashes before it that a walk of this call reached (see
   * `physicalByLstat`); WALK_ENDED when `ends` and one of them ended a walk first; 0 when none.
   */
  private walkedPrefix(raw: string, from: number, ends: boolean, scan: Scan): number {
    for (let k = from, tries = 0; k > 0 && tries < WALK_RESUME_TRIES; k = raw.lastIndexOf('/', k - 1), tries += 1) {
      const prefix = raw.slice(0, k);
      if (scan.walked.has(prefix)) return k;
      if (ends && scan.walkEnds.has(prefix)) return WALK_ENDED;
    }
    return 0;
  }

  private lstatKind(p: string, scan: Scan): number {
    const memo = scan.kindMemo.get(p);
    if (memo !== undefined) return memo;
    const listed = this.listedKind(p, scan);
    if (listed !== null) {
      scan.kindMemo.set(p, listed);
      return listed;
    }
    this.spend(scan);
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

  /**
   * The kind of `p` from its directory's listing, read once per call when LIST_AFTER names in
   * that directory have been asked about: a long argument naming thousands of files in a few
   * directories costs one lookup per directory, not one per file (issue 11), so the
   * `maxResolutions` refusal is reached only by arguments naming that many real directories
   * or existing paths. Null when the listing cannot answer exactly and `lstat` must: a name
   * with non-ASCII characters, a listing with non-ASCII names or a name differing only in case
   * (the filesystem may fold case or Unicode), an entry of unknown type, a directory that
   * cannot be read or is too large.
   */
  private listedKind(p: string, scan: Scan): number | null {
    const slash = p.lastIndexOf('/');
    if (slash < 0) return null;
    const name = p.slice(slash + 1);
    if (name === '' || name === '.' || name === '..') return null;
    if (this.knownMissing(p, slash, scan)) return KIND_MISSING;
    if (NON_ASCII.test(name)) return null;
    return this.listedName(slash === 0 ? '/' : p.slice(0, slash), name, scan);
  }

  /** `name`'s kind in `dir` from the listing (see `listedKind`); null when it cannot tell. */
  private listedName(dir: string, name: string, scan: Scan): number | null {
    let listing = scan.listings.get(dir);
    if (listing === undefined) {
      const asks = (scan.listingAsks.get(dir) ?? 0) + 1;
      scan.listingAsks.set(dir, asks);
      if (asks < LIST_AFTER) return null;
      listing = this.listDirectory(dir, scan);
      scan.listings.set(dir, listing);
    }
    return listing === null ? null : kindInListing(listing, name);
  }

  /**
   * A cold word (see `hotSegments`) under an open base, on the real filesystem: when the
   * listings along it show no symlink up to the first name that does not exist (or is a file,
   * or is the last), its real path is the base's real path plus the word, and when that
   * directory is open too the word cannot match either way. Settled without building the
   * joined path or queueing it (issue 11: no per-word work beyond one listing per directory).
   */
  private settledByListing(base: string, form: string, scan: Scan): boolean {
    // A glob is no name a listing can answer for.
    if (!this.realFs || NOT_NORMAL_RELATIVE.test(form) || GLOB.test(form)) return false;
    let dir = base;
    for (let from = 0; ; ) {
      const slash = form.indexOf('/', from);
      const name = slash === -1 ? form.slice(from) : form.slice(from, slash);
      const kind = this.listedName(dir, name, scan);
      if (kind === null || kind === KIND_SYMLINK_OR_ERROR) return false;
      if (slash === -1 || kind !== KIND_DIRECTORY) break;
      dir = dir === '/' ? `/${name}` : `${dir}/${name}`;
      from = slash + 1;
    }
    // A base that does not exist (a `cd` target not created yet; its listing was empty by
    // ENOENT): nothing below it exists either, so the word's physical path is the base's own
    // (its existing prefix resolved, a dangling link followed) plus the word, as written.
    // Resolved already when the scope's directories were (`scopeDirs`): no second lookup.
    const real = scan.physMemo.get(base) ?? this.realDirectory(base, scan) ?? this.physical(base, scan);
    return this.openDir(real, scan);
  }

  /**
   * Whether `p.slice(0, end)` or one of its ancestors is already known not to exist (lstat of
   * it failed with ENOENT): then nothing below it exists either. Stops at the nearest ancestor
   * known to exist.
   */
  private knownMissing(p: string, end: number, scan: Scan): boolean {
    for (let k = end; k > 0; k = p.lastIndexOf('/', k - 1)) {
      const prefix = k === p.length ? p : p.slice(0, k);
      // Asked of no lookup yet, but its directory may have been listed already (`docs` absent
      // from the working directory's listing): then `docs/a.md` needs no lstat either.
      const known = scan.kindMemo.get(prefix) ?? (scan.listings.size > 0 ? this.alreadyListed(prefix, scan) : undefined);
      if (known === KIND_MISSING) return true;
      if (known !== undefined) return false;
    }
    return false;
  }

  /** `p`'s kind from a listing of its directory read earlier in this call; undefined when there is none or it cannot tell. */
  private alreadyListed(p: string, scan: Scan): number | undefined {
    const slash = p.lastIndexOf('/');
    const listing = scan.listings.get(slash === 0 ? '/' : p.slice(0, slash));
    if (!listing) return undefined;
    const name = p.slice(slash + 1);
    if (name === '' || name === '.' || name === '..' || NON_ASCII.test(name)) return undefined;
    return kindInListing(listing, name) ?? undefined;
  }

  private listDirectory(dir: string, scan: Scan): Listing | null {
    const listing: Listing = { kinds: new Map(), folded: new Set(), exact: true };
    // Known not to exist (an lstat of it or of an ancestor said so): empty, as opendir's ENOENT
    // would say, without the lookup and the exception it throws.
    if (this.knownMissing(dir, dir.length, scan)) return listing;
    this.spend(scan);
    // A small directory (by its size, which grows with its entries on every common filesystem)
    // is read whole: readdir costs less than half of opendir here, whose handle is most of the
    // price of listing the few entries of a working directory (issue 11). A large one is read
    // through a handle, so a directory of a million names costs MAX_LISTING entries, not all.
    let st: Stats | undefined;
    try {
      st = statSync(dir, { throwIfNoEntry: false });
    } catch {
      // A name too long, a path through a file, no permission: each name is asked on its own.
      return null;
    }
    // A missing directory holds nothing (lstat of a name in it fails the same way); anything
    // else (not a directory, no permission to list) is left to lstat.
    if (st === undefined) return listing;
    if (!st.isDirectory()) return null;
    try {
      if (st.size <= SMALL_DIRECTORY_BYTES) {
        const entries = readdirSync(dir, { withFileTypes: true });
        if (entries.length > MAX_LISTING) return null;
        for (const entry of entries) addListed(listing, entry);
        return listing;
      }
      const handle = opendirSync(dir);
      try {
        for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
          if (listing.kinds.size >= MAX_LISTING) return null;
          addListed(listing, entry);
        }
      } finally {
        handle.closeSync();
      }
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { kinds: new Map(), folded: new Set(), exact: true } : null;
    }
    return listing;
  }

  /** `realpath` with the default lookup, without its `existsSync` (a working directory exists). */
  private realDirectory(p: string, scan: Scan): string | null {
    const memo = scan.rpMemo.get(p);
    if (memo !== undefined) return memo;
    this.spend(scan);
    let real: string | null = null;
    try {
      real = realpathSync.native(p);
    } catch {
      real = null;
    }
    scan.rpMemo.set(p, real);
    return real;
  }

  private realpath(p: string, scan: Scan): string | null {
    const memo = scan.rpMemo.get(p);
    if (memo !== undefined) return memo;
    this.spend(scan);
    const real = this.rp(p);
    scan.rpMemo.set(p, real);
    return real;
  }

  private readlink(p: string, scan: Scan): string | null {
    const memo = scan.linkMemo.get(p);
    if (memo !== undefined) return memo;
    this.spend(scan);
    const target = this.rl(p);
    scan.linkMemo.set(p, target);
    return target;
  }

  private spend(scan: Scan): void {
    scan.lookups += 1;
    scan.resolutions -= 1;
    if (scan.resolutions < 0) throw new LimitReached('too_large', `more than ${this.limits.maxResolutions} filesystem lookups to resolve the arguments' paths`);
  }

  private report(entry: Entry, site: Site, candidate: string, via: 'lexical' | 'realpath'): ProtectedPathMatch {
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
}

// -----------------------------------------------------------------------------------------------
// Helpers

/** Components from which `physicalByLstat` tries the whole path before walking from the root. */
const DEEP_PATH = 5;

/** An ASCII `name`'s kind from its directory's listing; null when the listing cannot tell (see `listedKind`). */
function kindInListing(listing: Listing, name: string): number | null {
  const kind = listing.kinds.get(name);
  if (kind !== undefined) return kind === KIND_UNKNOWN ? null : kind;
  return listing.exact && !listing.folded.has(name.toLowerCase()) ? KIND_MISSING : null;
}

function addListed(listing: Listing, entry: Dirent): void {
  const kind = entry.isSymbolicLink() ? KIND_SYMLINK_OR_ERROR : entry.isDirectory() ? KIND_DIRECTORY : entry.isFile() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice() ? KIND_FILE : KIND_UNKNOWN;
  if (NON_ASCII.test(entry.name)) listing.exact = false;
  listing.kinds.set(entry.name, kind);
  listing.folded.add(entry.name.toLowerCase());
}

/** How many of a path's nearest ancestors `physicalByLstat` looks up among the walked directories. */
const WALK_RESUME_TRIES = 3;
/** `walkedPrefix`: a prefix ended an earlier walk. */
const WALK_ENDED = -1;

/** Adds a path to `walked` or `walkEnds`, keeping `walkedLongest`. */
function noteWalk(set: Set<string>, p: string, scan: Scan): void {
  set.add(p);
  if (p.length > scan.walkedLongest) scan.walkedLongest = p.length;
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

function countSlashes(s: string): number {
  let count = 0;
  for (let i = s.indexOf('/'); i !== -1; i = s.indexOf('/', i + 1)) count += 1;
  return count;
}

const LEADING_PUNCTUATION = new Set(['(', '[', '{', '<', "'", '"', '`']);
const TRAILING_PUNCTUATION = new Set([')', ']', '}', '>', "'", '"', '`', '.', ',', ';', ':', '!', '?']);

/** The word without surrounding brackets, quotes and sentence punctuation (a loop: no regex backtracking). */
function stripPunctuation(w: string): string {
  let start = 0;
  let end = w.length;
  while (start < end && LEADING_PUNCTUATION.has(w[start]!)) start += 1;
  while (end > start && TRAILING_PUNCTUATION.has(w[end - 1]!)) end -= 1;
  return start === 0 && end === w.length ? w : w.slice(start, end);
}

function addWord(out: Map<string, boolean>, x: string): void {
  if (x !== '' && !out.has(x)) out.set(x, false);
  if (x.length > 1 && x.startsWith('@')) addWord(out, x.slice(1));
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function formatField(parts: readonly (string | number)[]): string {
  let out = '';
  for (const p of parts) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (IDENTIFIER.test(p)) out += out === '' ? p : `.${p}`;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

function formatPath(parts: readonly (string | number)[]): string {
  const field = formatField(parts);
  if (field === '') return 'args';
  return field.startsWith('[') ? `args${field}` : `args.${field}`;
}

/** Windows ignores a trailing dot or space and names the default stream `::$DATA`. */
function winSegment(seg: string): string {
  if (/^[a-z]:$/i.test(seg)) return seg;
  const colon = seg.indexOf(':');
  const base = colon === -1 ? seg : seg.slice(0, colon);
  const trimmed = base.replace(/[. ]+$/, '');
  return trimmed === '' ? base : trimmed;
}

function fileUrlPath(url: string): string {
  let rest = url.replace(/^file:/i, '');
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    rest = slash === -1 ? '/' : rest.slice(slash);
  }
  if (/^\/[A-Za-z]:/.test(rest)) rest = rest.slice(1);
  return percentDecode(rest);
}

function percentDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
}

/** Bash brace expansion (`{a,b}`, `{a..c}`, `{1..3}`); throws past `max` words. */
function braceExpand(word: string, max: number): string[] {
  const results: string[] = [];
  const queue = [word];
  while (queue.length > 0) {
    const w = queue.pop()!;
    const group = findBraceGroup(w);
    if (!group) {
      results.push(w);
      if (results.length > max) throw new LimitReached('too_large', `brace expansion of more than ${max} words`);
      continue;
    }
    const { start, end, options } = group;
    for (const o of options) {
      queue.push(w.slice(0, start) + o + w.slice(end + 1));
      if (queue.length + results.length > max) throw new LimitReached('too_large', `brace expansion of more than ${max} words`);
    }
  }
  return results;
}

/**
 * One expandable group of `w` (`{a,b}` or `{x..y}`, not `${…}`) in one linear pass: the first
 * to close, so the innermost first; the caller expands the rest in later passes.
 */
function findBraceGroup(w: string): { start: number; end: number; options: string[] } | null {
  const stack: { start: number; commas: number[]; dollar: boolean }[] = [];
  for (let j = 0; j < w.length; j += 1) {
    const c = w.charCodeAt(j);
    if (c === 0x7b /* { */) {
      stack.push({ start: j, commas: [], dollar: j > 0 && w[j - 1] === '$' });
    } else if (c === 0x2c /* , */) {
      stack[stack.length - 1]?.commas.push(j);
    } else if (c === 0x7d /* } */) {
      const group = stack.pop();
      if (!group || group.dollar) continue;
      if (group.commas.length > 0) {
        const options: string[] = [];
        let from = group.start + 1;
        for (const k of group.commas) {
          options.push(w.slice(from, k));
          from = k + 1;
        }
        options.push(w.slice(from, j));
        return { start: group.start, end: j, options };
      }
      if (j - group.start <= 48) {
        const seq = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(w.slice(group.start + 1, j));
        if (seq) return { start: group.start, end: j, options: sequence(seq[1]!, seq[2]!) };
      }
    }
  }
  return null;
}

function sequence(a: string, b: string): string[] {
  const numeric = /^-?\d+$/.test(a) && /^-?\d+$/.test(b);
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  const step = from <= to ? 1 : -1;
  const out: string[] = [];
  for (let v = from; step > 0 ? v <= to : v >= to; v += step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
    if (out.length > 1024) break;
  }
  return out;
}

/**
 * True when candidate segments `c[ci…]` name `e[ei…]` or something inside it. Either side may
 * hold globs: a candidate wildcard does not match a leading dot (as the shell); an entry
 * wildcard does (it protects more).
 */
function prefixMatch(c: readonly string[], ci: number, e: readonly string[], ei: number, cGlob: boolean, eGlob: boolean, memo: Map<number, boolean> | null): boolean {
  const id = ci * 65_536 + ei;
  const known = memo?.get(id);
  if (known !== undefined) return known;
  let result: boolean;
  if (ei === e.length) result = true;
  else if (eGlob && e[ei] === '**') result = prefixMatch(c, ci, e, ei + 1, cGlob, eGlob, memo) || (ci < c.length && prefixMatch(c, ci + 1, e, ei, cGlob, eGlob, memo));
  else if (ci === c.length) result = false;
  else if (cGlob && c[ci] === '**') result = prefixMatch(c, ci + 1, e, ei, cGlob, eGlob, memo) || (!e[ei]!.startsWith('.') && prefixMatch(c, ci, e, ei + 1, cGlob, eGlob, memo));
  else result = segmentMatch(c[ci]!, cGlob, e[ei]!, eGlob) && prefixMatch(c, ci + 1, e, ei + 1, cGlob, eGlob, memo);
  memo?.set(id, result);
  return result;
}

function segmentMatch(cand: string, cGlob: boolean, entry: string, eGlob: boolean): boolean {
  if (cand === entry) return true;
  if (eGlob && GLOB.test(entry) && wildcard(entry, cand, false)) return true;
  if (cGlob && GLOB.test(cand) && wildcard(cand, entry, true)) return true;
  return false;
}

/** Glob match of one segment: `*`, `?`, `[…]` (`!`/`^` negation, ranges). */
function wildcard(pattern: string, name: string, dotRule: boolean): boolean {
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
