import { readShell } from '../paths/shell.js';
import { braceExpand } from './braces.js';
import { CURRENT_DIR, GLOB, NON_ASCII, UNKNOWN_OUTPUT } from './chars.js';
import { LimitReached, type Scope, type Setup } from './scan.js';

// The candidate paths one string can mean: docs/protected-paths.md "How candidates are read".

/** A word `expand` returns unchanged: no URL, percent, backslash, brace, `~` or `$`. */
const EXPAND_PLAIN = /^[A-Za-z0-9_.+/,@=-]*$/;
const SIMPLE = /^[A-Za-z0-9._\-/+,@]*$/;
const PERCENT = /%[0-9A-Fa-f]{2}/;
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:\/\//;
const FILE_URL = /^file:/i;
const NAIVE_SPLIT = /[\s"'`|&;<>(){}[\],]+/;
const HOME_VARS = /\$\{HOME\}|\$HOME(?![A-Za-z0-9_])|%USERPROFILE%|%HOME%|\$env:USERPROFILE(?![A-Za-z0-9_])|\$env:HOME(?![A-Za-z0-9_])/gi;
const PWD_VARS = /\$\{PWD\}|\$PWD(?![A-Za-z0-9_])/g;
const FORMAT_CHARS = /\p{Cf}/gu;
/** Longest word brace expansion is applied to; a longer one that needs it fails closed. */
const MAX_BRACE_WORD = 16_384;
/** A word that is nothing but a name: no variants to derive. */
const WORD_PLAIN = /^[A-Za-z0-9_]+$/;

/**
 * Candidate words of one string, each flagged whether it is the whole (trimmed) string.
 * `executed`: the string is run as a command (see `shellWords`); `skipCold`: every base is open.
 */
export function words(m: Setup, s: string, scope: Scope, executed: boolean, skipCold: boolean): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const whole = s.trim();
  out.set(whole, true);
  if (SIMPLE.test(s)) {
    if (s.includes(',') || s.startsWith('@') || s.startsWith('-')) wordVariants(whole, out);
    return out;
  }
  const variants = [s];
  const ascii = !NON_ASCII.test(s);
  if (!ascii) {
    // Fullwidth and zero-width spellings: docs/protected-paths.md "How entries and candidates are compared".
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
    wordVariants(w, out);
  };
  for (const v of variants) {
    const t = v.trim();
    if (!out.has(t)) out.set(t, true);
    // The whole string's own variants only when it is one word: a long text has none worth the cost.
    if (!/\s/.test(t)) vary(t);
    const shell = shellWords(m, v, scope, executed);
    // Cold plain words (paths/cold-words.ts) are dropped before they are hashed, when every
    // directory they would be joined with is open: the bases (checked per call) and the
    // container's directory-like values (each is a word of its own, reported itself when
    // protected). Not when the string names directories that are no word of it (a bare `cd`
    // goes to $HOME, `cd -` to $OLDPWD, $CDPATH): `scope` then has directories of its own.
    const cold = skipCold && scope.dirs.length === 0 ? m.coldWords : null;
    for (const w of shell) if (cold === null || !cold.isColdPlain(w, 0, w.length)) vary(w);
    if (cold !== null && ascii) cold.naiveWords(v, vary);
    else for (const w of v.split(NAIVE_SPLIT)) vary(w);
  }
  return out;
}

/** The parts of one word a tool may take as a path: after `=`, `,`, a path-starting `:`, `@`, an option's letter. */
function wordVariants(w: string, out: Map<string, boolean>): void {
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
 * as if it stood alone, and the rest is checked (docs/protected-paths.md "Output that cannot be known").
 */
function shellWords(m: Setup, s: string, scope: Scope, executed: boolean): string[] {
  const reading = readShell(s, { win: m.win, maxDepth: m.limits.maxShellDepth, expandHome: (w) => expandHome(m, w), environment: m.environment });
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
    const rel = dir.startsWith(CURRENT_DIR) ? `.${dir.slice(1)}` : dir.replaceAll(CURRENT_DIR, m.cwd);
    for (const form of expand(m, rel)) scope.dirs.push(form);
  }
  return reading.words.map((w) => (w.includes(UNKNOWN_OUTPUT) ? w.replaceAll(UNKNOWN_OUTPUT, '') : w));
}

/** The path forms of one word: file: URL, percent-decoding, backslashes, braces, `~`/`$HOME`. */
export function expand(m: Setup, word: string): string[] {
  // Nothing below changes a word without `:`, `%`, `\`, `{`, `~` or `$`: most words of a long text.
  if (EXPAND_PLAIN.test(word)) return [word];
  let w = word;
  if (FILE_URL.test(w)) w = fileUrlPath(w);
  else if (URL_SCHEME.test(w)) return [];
  const forms = new Set<string>([w]);
  if (PERCENT.test(w)) {
    // A tool might decode it, and the decoded form can only block more.
    let d = w;
    for (let round = 0; round < 3 && PERCENT.test(d); round += 1) {
      d = percentDecode(d);
      forms.add(d);
    }
  }
  if (!m.win) {
    // A backslash read as `/` and as a shell escape: both can only block more.
    for (const f of [...forms]) {
      if (f.includes('\\')) {
        forms.add(f.replace(/\\/g, '/'));
        forms.add(f.replace(/\\/g, ''));
      }
    }
  }
  const out = new Set<string>();
  for (const f of forms) {
    const braced = bracable(m, f) ? braceExpand(f, m.limits.maxExpansions) : [f];
    for (const b of braced) out.add(expandHome(m, b));
  }
  return [...out];
}

/**
 * Whether a word gets brace expansion: one shell word (no blanks) with a group, that could
 * reach a protected path — it holds a separator, `~` or `$`, starts with `.` or `{` (the only
 * ways a one-segment word becomes `.env`), or the policy has glob entries. Compact JSON
 * (`[{"a":1,"b":2},…]`) therefore does not multiply into thousands of words.
 */
function bracable(m: Setup, f: string): boolean {
  if (!f.includes('{') || !f.includes('}') || /\s/.test(f)) return false;
  if (!(m.globEntries || /[/\\~$]/.test(f) || f.startsWith('.') || f.startsWith('{'))) return false;
  if (f.length > MAX_BRACE_WORD) throw new LimitReached('too_large', `a ${f.length}-character word with brace groups (over ${MAX_BRACE_WORD})`);
  return true;
}

/** `~`, `~user` (a sibling of the home directory), `~+`, `$HOME`, `${HOME}`, `$PWD` and their Windows spellings. */
export function expandHome(m: Setup, p: string): string {
  let out = p;
  if (out.startsWith('~')) {
    const match = /^~([^/\\]*)(.*)$/s.exec(out)!;
    const user = match[1]!;
    const rest = match[2]!;
    if (user === '') out = m.home + rest;
    else if (user === '+') out = m.cwd + rest;
    else if (!GLOB.test(user)) out = m.path.join(m.path.dirname(m.home), user) + rest;
  }
  if (out.includes('$') || out.includes('%')) {
    out = out.replace(HOME_VARS, () => m.home).replace(PWD_VARS, () => m.cwd);
  }
  return out;
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

/** The path of a `file:` URL, any host ignored. */
function fileUrlPath(url: string): string {
  let rest = url.replace(/^file:/i, '');
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    rest = slash === -1 ? '/' : rest.slice(slash);
  }
  if (/^\/[A-Za-z]:/.test(rest)) rest = rest.slice(1);
  return percentDecode(rest);
}

/** Malformed UTF-8 escapes leave the ASCII escapes decoded. */
function percentDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
}
