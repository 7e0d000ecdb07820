import { CURRENT_DIR as CURRENT_DIR_MARKER, UNKNOWN_OUTPUT as UNKNOWN_OUTPUT_MARKER } from '../paths/shell.js';

// Character classes and markers the parts of the matcher share.

// Module-level copies of the markers: where modules are compiled to CommonJS (tsx: the tests
// and benchmarks), every use of an imported binding is a getter call, which profiles showed in
// the per-word loops (docs/protected-paths.md "Cost and file-system lookups").
export const CURRENT_DIR = CURRENT_DIR_MARKER;
export const UNKNOWN_OUTPUT = UNKNOWN_OUTPUT_MARKER;

export const NON_ASCII = /[\u0080-\uffff]/;
export const GLOB = /[*?[]/;
/** A string that is exactly one candidate path (see `scanString`). */
export const FAST_WORD = /^[A-Za-z0-9_.+/][A-Za-z0-9_.+/-]*$/;
/** An absolute POSIX path that `resolve` would change: `//`, `.`/`..` segments, a trailing `/`. */
export const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;
/** A relative form that joining to a normal base would not leave normal: `.`/`..` segments, `//`, a trailing `/`. */
export const NOT_NORMAL_RELATIVE = /(?:^|\/)\.\.?(?:\/|$)|\/\/|\/$/;
/** Text longer than this is never resolved as a path. */
export const PATH_MAX = 4096;
