import type { PathBases } from '../paths/path-bases.js';
import type { Environment } from '../paths/shell-vars.js';

// The public shapes of a protected-path check (spec 001 §3.4.5, §4.3 step 2, §10.1); what is
// matched and why is in docs/protected-paths.md.

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
interface UninspectableArguments {
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

/** A protected path's comparison key. */
export interface Key {
  /** Comparison form: `/` separators, NFC, case-folded where the platform is case-insensitive. */
  key: string;
  /** `key` with a trailing `/`, for containment. */
  prefix: string;
}

export interface Entry {
  written: string;
  source: ProtectedPathSource;
  anywhere: boolean;
  glob: boolean;
  /** Absolute entries: the lexical and the real form (with their segments, for globs). */
  keys: (Key & { segs: string[] })[];
  /** Anywhere entries: the segments, and `/seg/seg/` for the fast substring test. */
  segs: string[];
  needle: string;
  /** Expanded form, before realpath, kept for `refresh`. */
  expanded: string;
}

/** One directory's entries by name (`lstatKind` results), read once per `find`. */
export interface Listing {
  kinds: Map<string, number>;
  /** The entries' names lower-cased: a name absent from `kinds` but present here differs only in case. */
  folded: Set<string>;
  /** No entry has a non-ASCII name, so an ASCII name absent from `kinds` surely does not exist. */
  exact: boolean;
}
