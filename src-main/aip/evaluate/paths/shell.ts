/*
 * Shell reading for the protected-path matcher, so a protected path reached through a nested shell,
 * a substitution or a `cd` is still found (docs/protected-paths.md "Shell commands"): the words a
 * POSIX shell would see in a command string, with quotes removed, escapes decoded, command
 * substitutions (`$(…)`, backquotes) evaluated where their output can be known (`echo`, `printf
 * '%s'`, `pwd`, nested) and variables expanded (paths/shell-vars.ts: assignments of the script
 * itself, then the server's environment when it is known). Words that hold shell syntax (`bash -c
 * 'cd ~ && cat .ssh/id_rsa'`, `ssh host '…'`) are read again as scripts, up to `maxDepth` levels.
 * Each level reads each character once, and variable expansion may add at most EXPANSION_FACTOR
 * times the text (past that the reading reports `overflow`), so the work stays linear in the text.
 * The matcher resolves the words; this module only reads. It reads every string of every call the
 * proxy relays, which is why its loops are written for speed (docs/protected-paths.md "Cost and
 * file-system lookups").
 */

import { CURRENT_DIR as CURRENT_DIR_MARKER, UNKNOWN_OUTPUT as UNKNOWN_OUTPUT_MARKER } from './shell-markers.js';
import { EMPTY_VALUE, MAX_ALTERNATIVES, merge, UNKNOWN_VALUE, VarScope, type Environment, type Value } from './shell-vars.js';
import { WordSet } from './word-set.js';

// Module-level copies of the markers: where modules are compiled to CommonJS (tsx: the tests
// and benchmarks), every use of an imported binding is a getter call, which profiles showed
// in the per-word loops.
export const CURRENT_DIR = CURRENT_DIR_MARKER;
export const UNKNOWN_OUTPUT = UNKNOWN_OUTPUT_MARKER;

export interface ShellReading {
  /** Every distinct word at every depth, in the order first read. */
  words: string[];
  /** Directories the script changes into (`cd`, `pushd`, `-C`, `--cwd=`…), in order; a bare `cd` is home. */
  dirs: string[];
  /** Words in which an unknowable output or variable is glued to path text, or is a directory changed into. */
  unknowable: string[];
  /** Why the reading stopped before the end (variables expanding past the budget); null when it did not. */
  overflow: string | null;
}

export interface ShellOptions {
  win: boolean;
  /** Nested scripts read again (`bash -c '…'`, substitutions inside substitutions). */
  maxDepth: number;
  /** `~`, `$HOME`: what `echo ~` prints. */
  expandHome(word: string): string;
  /** The environment the commands run with (the MCP server's); absent when it cannot be known. */
  environment?: Environment;
}

/** Variable expansion may add this many times the script's length (plus EXPANSION_SLACK) in all. */
const EXPANSION_FACTOR = 4;
const EXPANSION_SLACK = 65_536;
/** `${A:-${B:-…}}` nested deeper than this is unknowable. */
const MAX_BRACE_NESTING = 16;
/** Marks a multi-valued expansion inside a word being read; the next character names the slot. */
const SLOT = '\u0003';
const SLOT_BASE = 0xe000;

/** Commands whose output is one name without a separator: a one-segment wildcard. */
const NAME_PRODUCERS = new Set(['date', 'whoami', 'id', 'hostname', 'uname', 'nproc', 'arch', 'logname']);
const DIR_OPTIONS = new Set(['-C', '--cwd', '--directory', '--chdir', '--workdir', '--work-dir', '--working-directory']);
const DIR_OPTION_EQ = /^--(?:cwd|directory|chdir|workdir|work-dir|working-directory)=/;
// SCRIPT_LIKE, text that holds shell syntax worth reading again as a script, is
// /[\s;&|<>()`]|\$\(/ tested by char codes (isScriptLike).
/** Path text next to an unknowable output: it may then be any path. */
const PATH_TEXT = /[/\\~.]/;
const DECLARERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
const READERS = new Set(['read', 'mapfile', 'readarray']);
const VARIABLE_SETTERS = new Set([...DECLARERS, ...READERS, 'getopts', 'printf', 'unset']);
/** By character code: whether a name of VARIABLE_SETTERS starts with it. */
const SETTER_INITIALS = (() => {
  const table = new Uint8Array(128);
  for (const w of VARIABLE_SETTERS) table[w.charCodeAt(0)] = 1;
  return table;
})();
/** POSIX special built-ins: `X=v eval …` keeps X afterwards. */
const SPECIAL_BUILTINS = new Set([':', '.', 'eval', 'exec', 'export', 'readonly', 'return', 'set', 'shift', 'source', 'trap', 'unset']);
const SHELL_NAME = /(?:^|\/)(?:ba|da|z|k|mk|a|fi|c|tc)?sh$/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAME_AT = /[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]/y;
/** Characters a backslash escapes inside double quotes. */
const QUOTED_ESCAPES = '"\\$`';
const HAS_SPACE = /\s/;
/** Slots of the cache in front of the distinct words (`Shared.recent`), made for texts from RECENT_FROM characters. */
const RECENT_SLOTS = 1024;
const RECENT_FROM = 4096;
const EMPTY_FLAGS = new Uint8Array(0);

/**
 * A word read: its one text, or its alternatives (two or more) when it holds a multi-valued
 * expansion. Not an array per word: most words have one text, and a long text has many words.
 */
type Word = string | string[];
type Close = ')' | '`' | '}' | null;

interface Shared {
  out: ShellReading;
  /** `out.words` (its `list`) as a set, each with whether it holds shell syntax (SCRIPT_LIKE): tested once per distinct word. */
  seen: WordSet;
  /**
   * A cache in front of `seen`: slot by length and three characters, the word last found
   * there and its SCRIPT_LIKE flag. Every word in it is in `seen` (null: an empty slot).
   */
  recent: (string | null)[] | null;
  recentScriptLike: Uint8Array;
  options: ShellOptions;
  /** Characters variable expansion may still add. */
  budget: number;
  readonly limit: number;
}

class ExpansionOverflow extends Error {}

export function readShell(text: string, options: ShellOptions): ShellReading {
  const seen = new WordSet();
  const out: ShellReading = { words: seen.list, dirs: [], unknowable: [], overflow: null };
  // The slot marker is the reader's own: in the input it is just an odd character.
  const clean = text.includes(SLOT) ? text.replaceAll(SLOT, '\ufffd') : text;
  const limit = EXPANSION_FACTOR * text.length + EXPANSION_SLACK;
  // Only a long text gets the cache: the matcher reads every string of the arguments, and most
  // are short, where making it would cost more than it saves.
  const long = text.length >= RECENT_FROM;
  const shared: Shared = {
    out,
    seen,
    recent: long ? new Array<string | null>(RECENT_SLOTS).fill(null) : null,
    recentScriptLike: long ? new Uint8Array(RECENT_SLOTS) : EMPTY_FLAGS,
    options,
    budget: limit,
    limit,
  };
  const vars = new VarScope(null, { environment: options.environment, home: options.expandHome('~') });
  try {
    new ShellReader(clean, shared, vars, 0).script(0, null);
  } catch (error) {
    if (!(error instanceof ExpansionOverflow)) throw error;
    out.overflow = `shell variables expanding to more than ${limit} characters`;
  }
  return out;
}

class ShellReader {
  private i = 0;
  /** Depth of if/while/for/case/{…} bodies, and of `( … )`: assignments there may not run, or not persist. */
  private body = 0;
  private parens = 0;
  private changedDir = false;

  constructor(
    private readonly s: string,
    private readonly shared: Shared,
    private readonly vars: VarScope,
    private readonly depth: number,
    /** Read inside a body of the script around it (a substitution or nested script in a loop). */
    private readonly outerBody = false,
    private readonly braces = 0,
  ) {}

  /**
   * Reads commands from `start` until `close` or the end; returns the substitution's output
   * (known text, or containing UNKNOWN_OUTPUT) and leaves `i` after `close`. A body that used a
   * variable assigned after it (a loop's next round, a function called later) is read once more
   * with every value the script gives that variable.
   */
  script(start: number, close: ')' | '`' | null): { end: number; output: string } {
    let commands = this.pass(start, close);
    if (this.vars.rereadNeeded && this.vars.hints === null) {
      this.vars.hints = this.vars.everAssigned;
      this.body = 0;
      this.parens = 0;
      this.changedDir = false;
      commands = this.pass(start, close);
    }
    // The top level prints into nothing the matcher reads.
    return { end: this.i, output: close === null ? '' : this.output(commands) };
  }

  // The word being read and the command around it live on the reader, not in closures made per
  // `pass`: nested scripts, substitutions and `${X:-word}` each run a pass, and a closure per
  // helper per pass showed in profiles with the garbage it leaves. A reader runs one
  // pass at a time; every nested reading gets its own reader.
  private cur = '';
  private inWord = false;
  private slots: string[][] | null = null;
  private words: Word[] = [];
  private commands: Word[][] | null = null;
  private before = ';';
  /** Reserved words open and close bodies as soon as they are read: `{ cat $K/x; }` is in one. */
  private leading = false;
  private wordMode = false;

  private pass(start: number, close: Close): Word[][] {
    const s = this.s;
    const n = s.length;
    const wordMode = close === '}';
    const win = this.shared.options.win;
    this.i = start;
    this.wordMode = wordMode;
    // Kept only where they are printed into a word (substitutions, `${X:-word}`): a long
    // top-level script would otherwise hold every word twice until it is read.
    this.commands = close !== null ? [] : null;
    this.words = [];
    this.cur = '';
    this.inWord = false;
    this.slots = null;
    this.before = ';';
    this.leading = !wordMode;
    const closeCode = close === null ? -1 : close.charCodeAt(0);
    while (this.i < n) {
      const i = this.i;
      const code = s.charCodeAt(i);
      if (code < 0x80 ? PLAIN_ASCII[code] === 1 : isPlain(code)) {
        // Most of any text: a run of ordinary characters, appended as one slice. Tested first:
        // no branch below treats them specially, and none of them closes a pass.
        let end = i + 1;
        while (end < n) {
          const e = s.charCodeAt(end);
          if (e < 0x80 ? PLAIN_ASCII[e] === 0 : !isPlain(e)) break;
          end += 1;
        }
        this.cur += s.slice(i, end);
        this.inWord = true;
        this.i = end;
        continue;
      }
      if (code === 0x20) {
        // A space ends the word being read, in any mode (below, as `isBlank`); between words
        // there is nothing to end (`cur` is empty and `slots` null whenever `inWord` is false).
        if (this.inWord) this.endWord();
        this.i = i + 1;
        continue;
      }
      if (code === closeCode) {
        this.i = i + 1;
        break;
      }
      const c = s[i]!;
      if (code === 0x5c /* \ */ && !win) {
        if (i + 1 < n && s.charCodeAt(i + 1) !== 0x0a) {
          this.cur += s[i + 1];
          this.inWord = true;
        }
        this.i = i + 2;
      } else if (code === 0x27 /* ' */) {
        const end = s.indexOf("'", i + 1);
        this.cur += end === -1 ? s.slice(i + 1) : s.slice(i + 1, end);
        this.inWord = true;
        this.i = end === -1 ? n : end + 1;
      } else if (code === 0x22 /* " */) {
        this.doubleQuoted();
      } else if (code === 0x24 /* $ */ && s.charCodeAt(i + 1) === 0x27) {
        const end = s.indexOf("'", i + 2);
        this.cur += decodeAnsiC(end === -1 ? s.slice(i + 2) : s.slice(i + 2, end));
        this.inWord = true;
        this.i = end === -1 ? n : end + 1;
      } else if (code === 0x24 /* $ */ || code === 0x60 /* ` */) {
        const sub = this.dollarOrBackquote();
        if (sub === null) {
          this.cur += c;
          this.inWord = true;
          this.i = i + 1;
        } else {
          this.expansion(sub, false);
        }
      } else if (code === 0x7e /* ~ */ && !this.inWord && this.vars.assigned('HOME')) {
        // `~` is whatever the script set HOME to.
        this.expansion(this.value('HOME'), true);
        this.i = i + 1;
      } else if (wordMode) {
        if (isBlank(code)) this.endWord();
        else {
          this.cur += c;
          this.inWord = true;
        }
        this.i = i + 1;
      } else if ((code === 0x3c || code === 0x3e) && s.charCodeAt(i + 1) === 0x28) {
        // Process substitution: a /dev/fd path whose commands are read like any other.
        this.endWord();
        this.nested(i + 2, ')');
      } else if (code === 0x28 /* ( */ && this.inWord && this.cur.endsWith('=') && ASSIGNMENT.test(this.cur)) {
        // `X=(a b)`: an array, whose elements are read as words; `$X` is not followed.
        this.cur += UNKNOWN_OUTPUT;
        this.endCommand('(');
        this.parens += 1;
        this.i = i + 1;
      } else if (code === 0x0a || code === 0x3b || code === 0x26 || code === 0x7c || code === 0x28 || code === 0x29) {
        // `&&` and `||` as literals, not `c + c`: a new string per separator compares slower.
        const sep = (code === 0x26 || code === 0x7c) && s.charCodeAt(i + 1) === code ? (code === 0x26 ? '&&' : '||') : c;
        this.endCommand(sep);
        if (code === 0x28) this.parens += 1;
        else if (code === 0x29) this.parens = Math.max(0, this.parens - 1);
        this.i = i + sep.length;
      } else if (isBlank(code) || code === 0x3c || code === 0x3e) {
        this.endWord();
        this.i = i + 1;
      } else {
        // A run of ordinary characters is appended as one slice, not one concatenation per
        // character: this branch reads most of the text.
        let end = i + 1;
        while (end < n && isPlain(s.charCodeAt(end))) end += 1;
        this.cur += end === i + 1 ? c : s.slice(i, end);
        this.inWord = true;
        this.i = end;
      }
    }
    this.endCommand('\n');
    const commands = this.commands ?? [];
    this.commands = null;
    this.words = [];
    return commands;
  }

  /** At `"`: its text, backslashes before `"\$\`` removed, expansions kept as one piece. */
  private doubleQuoted(): void {
    const s = this.s;
    const n = s.length;
    this.i += 1;
    this.inWord = true;
    while (this.i < n && s.charCodeAt(this.i) !== 0x22) {
      const i = this.i;
      const d = s.charCodeAt(i);
      if (d === 0x5c && i + 1 < n && QUOTED_ESCAPES.includes(s[i + 1]!)) {
        this.cur += s[i + 1];
        this.i = i + 2;
      } else if (d === 0x24 || d === 0x60) {
        const sub = this.dollarOrBackquote();
        if (sub === null) {
          this.cur += s[i];
          this.i = i + 1;
        } else {
          this.expansion(sub, true);
        }
      } else {
        // Up to the next character the quotes treat specially, as one slice.
        let end = i + 1;
        while (end < n) {
          const e = s.charCodeAt(end);
          if (e === 0x22 || e === 0x5c || e === 0x24 || e === 0x60) break;
          end += 1;
        }
        this.cur += s.slice(i, end);
        this.i = end;
      }
    }
    this.i += 1;
  }

  private endWord(): void {
    if (this.inWord) {
      const word = this.slots === null ? this.cur : this.finish(this.cur, this.slots);
      if (this.leading) this.leading = this.reserved(word);
      this.words.push(word);
    }
    this.cur = '';
    this.inWord = false;
    this.slots = null;
  }

  private endCommand(sep: string): void {
    this.endWord();
    const command = this.words;
    if (command.length > 0) {
      if (!this.wordMode) this.command(command, this.before, sep);
      if (this.commands !== null) this.commands.push(command);
      this.words = [];
    }
    this.before = sep;
    this.leading = !this.wordMode;
  }

  /** Appends expanded text; unquoted, its blanks split words as the shell does. */
  private append(output: string, quoted: boolean): void {
    if (quoted || !HAS_SPACE.test(output)) {
      // Unquoted text without blanks is one piece: the split below would give it back whole.
      if (quoted || output !== '') {
        this.cur += output;
        this.inWord = true;
      }
      return;
    }
    const pieces = output.split(/\s+/);
    for (let k = 0; k < pieces.length; k += 1) {
      if (k > 0) this.endWord();
      if (pieces[k] !== '') {
        this.cur += pieces[k];
        this.inWord = true;
      }
    }
  }

  /** A variable's alternatives: one is text; several hold a slot the word is multiplied by. */
  private expansion(value: string | string[], quoted: boolean): void {
    if (typeof value === 'string') this.append(value, quoted);
    else if (value.length === 1) this.append(value[0]!, quoted);
    else {
      const slots = (this.slots ??= []);
      if ((!quoted && value.some(hasSpace)) || slots.length >= MAX_ALTERNATIVES) this.append(UNKNOWN_OUTPUT, quoted);
      else {
        this.cur += SLOT + String.fromCharCode(SLOT_BASE + slots.length);
        slots.push(value);
        this.inWord = true;
      }
    }
  }

  /** Counts a body opened or closed by a reserved word at a command's start; false for any other word. */
  private reserved(word: Word): boolean {
    if (typeof word !== 'string') return false;
    const kind = reservedKind(word);
    if (kind === OPENER) this.body += 1;
    else if (kind === CLOSER) this.body = Math.max(0, this.body - 1);
    else return kind === PREFIX;
    return true;
  }

  private inBody(): boolean {
    return this.body > 0 || this.parens > 0 || this.outerBody;
  }

  /** At `$` or a backquote: a substitution's output, a variable's alternatives, or null for a plain `$`. */
  private dollarOrBackquote(): string | string[] | null {
    const s = this.s;
    if (s[this.i] === '`') return this.nested(this.i + 1, '`');
    const next = s[this.i + 1];
    if (next === '(' && s[this.i + 2] === '(') {
      // Arithmetic: a number.
      const end = s.indexOf('))', this.i + 3);
      this.i = end === -1 ? s.length : end + 2;
      return '0';
    }
    if (next === '(') return this.nested(this.i + 2, ')');
    if (next === '{') return this.braced();
    NAME_AT.lastIndex = this.i + 1;
    const m = NAME_AT.exec(s);
    if (m === null) return null;
    this.i += 1 + m[0].length;
    return this.value(m[0]);
  }

  /** `${NAME}`, `${NAME:-word}`, `${NAME-word}`, `:=`, `:+`, `:?`; any other operation is unknowable. */
  private braced(): string[] {
    const s = this.s;
    let j = this.i + 2;
    NAME_AT.lastIndex = j;
    const m = this.braces < MAX_BRACE_NESTING ? NAME_AT.exec(s) : null;
    if (m === null) {
      this.i = j;
      this.braceWord();
      return [UNKNOWN_OUTPUT];
    }
    const name = m[0];
    j += name.length;
    if (s[j] === '}') {
      this.i = j + 1;
      return this.value(name);
    }
    const colon = s[j] === ':';
    const op = s[colon ? j + 1 : j];
    if (op !== '-' && op !== '=' && op !== '+' && op !== '?') {
      // `${X%/*}`, `${X/a/b}`, `${X:0:3}`, `${X[0]}`, `${!X}`…: the result cannot be known.
      this.i = j;
      this.braceWord();
      return [UNKNOWN_OUTPUT];
    }
    this.i = j + (colon ? 2 : 1);
    const word = this.braceWord();
    const v = this.vars.lookup(name, this.inBody());
    const unknown = v.alts.includes(UNKNOWN_OUTPUT);
    const set = v.alts.filter((a) => !(colon && a === ''));
    const mayBeUnset = v.maybeUnset || unknown || set.length < v.alts.length;
    let alts: string[];
    if (op === '+') alts = [...(set.length > 0 ? word : []), ...(mayBeUnset ? [''] : [])];
    else if (op === '?') alts = v.alts;
    else alts = mayBeUnset ? merge({ alts: set, maybeUnset: false }, { alts: word, maybeUnset: false }).alts : v.alts;
    if (op === '=') this.vars.assign(name, { alts, maybeUnset: false }, false);
    if (alts.length === 0) alts = [''];
    this.charge(alts);
    return alts;
  }

  /** The word of `${X:-word}` up to its `}`: its alternatives, `~` expanded. */
  private braceWord(): string[] {
    const inner = new ShellReader(this.s, this.shared, this.vars, this.depth, this.inBody(), this.braces + 1);
    const commands = inner.pass(this.i, '}');
    this.i = inner.i;
    // A word pass ends no command before its `}`: one command at most, so no flattening copies.
    const words: Word[] = commands.length === 1 ? commands[0]! : commands.flat();
    let alts: string[];
    if (words.length === 0) alts = [''];
    else if (words.length === 1) alts = alternatives(words[0]!);
    else {
      let joined = '';
      let single = true;
      for (let k = 0; k < words.length && single; k += 1) {
        single = typeof words[k] === 'string';
        joined += (k > 0 ? ' ' : '') + one(words[k]!);
      }
      alts = [single ? joined : UNKNOWN_OUTPUT];
    }
    const out: string[] = [];
    for (const a of alts) out.push(this.assignedValue(a));
    return out;
  }

  private value(name: string): string[] {
    const alts = this.vars.lookup(name, this.inBody()).alts;
    this.charge(alts);
    return alts;
  }

  /** Counts expanded text against the budget: past it the reading stops, not fully inspected. */
  private charge(texts: readonly string[]): void {
    for (const t of texts) this.shared.budget -= t.length + 1;
    if (this.shared.budget < 0) throw new ExpansionOverflow();
  }

  /** A word's alternatives: one per combination of its multi-valued expansions (bounded). */
  private finish(cur: string, slots: string[][] | null): Word {
    if (slots === null || slots.length === 0) return cur;
    let words = [''];
    let from = 0;
    for (let k = cur.indexOf(SLOT); k !== -1; k = cur.indexOf(SLOT, k + 2)) {
      const alts = slots[cur.charCodeAt(k + 1) - SLOT_BASE]!;
      if (words.length * alts.length > MAX_ALTERNATIVES) return unknownSlots(cur);
      const text = cur.slice(from, k);
      words = words.flatMap((w) => alts.map((a) => w + text + a));
      from = k + 2;
    }
    const tail = cur.slice(from);
    words = words.map((w) => w + tail);
    this.charge(words);
    return words;
  }

  /** A substitution: read at the next depth (or not at all past the limit: unknowable). */
  private nested(start: number, close: ')' | '`'): string {
    if (this.depth >= this.shared.options.maxDepth) {
      const end = this.s.indexOf(close, start);
      this.i = end === -1 ? this.s.length : end + 1;
      return UNKNOWN_OUTPUT;
    }
    // A subshell: it sees every variable, and what it assigns stays inside.
    const inner = new ShellReader(this.s, this.shared, this.vars.derive(), this.depth + 1, this.inBody());
    const { end, output } = inner.script(start, close);
    this.i = end;
    return output;
  }

  /**
   * Records one command: reserved words, assignments, built-ins that set variables, then its
   * words, directories and nested scripts. `before`/`after`: the separators around it.
   */
  private command(texts: Word[], before: string, after: string): void {
    let k = 0;
    let loop = false;
    // Reserved words were counted as they were read (`reserved`).
    for (; k < texts.length && typeof texts[k] === 'string'; k += 1) {
      const w = texts[k] as string;
      if (w === 'for' || w === 'select') {
        this.loopVariable(texts, k);
        loop = true;
        break;
      }
      if (reservedKind(w) === 0) break;
    }
    // An assignment that surely runs, in this shell, replaces the value; any other adds to it.
    const plain = !this.inBody() && before !== '&&' && before !== '||' && before !== '|' && after !== '|' && after !== '&';
    let j = k;
    while (!loop && j < texts.length && isAssignment(one(texts[j]!))) j += 1;
    const name = !loop && j < texts.length ? one(texts[j]!) : null;
    let scope = this.vars;
    if (!loop && name === null) {
      for (let x = k; x < j; x += 1) this.assignWord(this.vars, texts[x]!, plain);
    } else if (name !== null && j > k) {
      // `X=v cmd`: X is in cmd's environment (and the scripts it runs), not the shell's.
      scope = this.vars.derive();
      for (let x = k; x < j; x += 1) this.assignWord(scope, texts[x]!, true, true);
      if (SPECIAL_BUILTINS.has(name)) for (let x = k; x < j; x += 1) this.assignWord(this.vars, texts[x]!, false);
    }
    if (name !== null) this.builtin(name, texts, j, plain);
    const seen = this.shared.seen;
    const recent = this.shared.recent;
    const recentScriptLike = this.shared.recentScriptLike;
    const mask = RECENT_SLOTS - 1;
    const nest = this.depth < this.shared.options.maxDepth;
    for (let x = 0; x < texts.length; x += 1) {
      const text = texts[x]!;
      const many = typeof text !== 'string';
      const first = many ? text[0]! : text;
      if (first === 'cd' || first === 'pushd') this.changeDir(texts, x);
      else if (first.charCodeAt(0) === 0x2d && DIR_OPTIONS.has(first) && texts[x + 1] !== undefined) for (const d of alternatives(texts[x + 1]!)) this.dir(d);
      const count = many ? text.length : 1;
      for (let a = 0; a < count; a += 1) {
        const w = many ? text[a]! : text;
        // Each distinct word once: a long script repeats its commands and names. What a word
        // says by itself (an `--cwd=` directory, an unknowable path) is recorded the first time;
        // the matcher reads directories as a set.
        // A word just seen again (most words of a long text) is found in `recent` by one
        // comparison, before hashing the whole word into `seen`.
        const n = w.length;
        const h = (n * 31 + w.charCodeAt(0) * 7 + w.charCodeAt(n >> 1) * 3 + w.charCodeAt(n - 1)) & mask;
        let scriptLike: boolean;
        if (recent !== null && recent[h] === w) scriptLike = recentScriptLike[h] === 1;
        else {
          const known = seen.flag(w);
          if (known !== -1) scriptLike = known === 1;
          else {
            scriptLike = isScriptLike(w);
            // Adds it to the reading's words too (`seen.list`).
            seen.add(w, scriptLike ? 1 : 0);
            if (w.charCodeAt(0) === 0x2d && DIR_OPTION_EQ.test(w)) this.dir(w.slice(w.indexOf('=') + 1));
            if (w.includes(UNKNOWN_OUTPUT) && PATH_TEXT.test(w.replaceAll(UNKNOWN_OUTPUT, ''))) this.shared.out.unknowable.push(w);
          }
          if (recent !== null) {
            recent[h] = w;
            recentScriptLike[h] = scriptLike ? 1 : 0;
          }
        }
        // `bash -c '…'`, `ssh host '…'`, `eval "…"`: the word is a script of its own (read at
        // each occurrence: the variables it sees may differ).
        if (scriptLike && nest && x > 0) this.nestedScript(w, texts, x, scope, name);
      }
    }
  }

  private nestedScript(w: string, texts: Word[], x: number, scope: VarScope, name: string | null): void {
    let vars: VarScope;
    if (name === 'eval') vars = scope;
    else {
      // A new shell: `sh -c SCRIPT a0 a1` gives it `$0`, `$1`; other scripts' arguments are unknown.
      const option = one(texts[x - 1]!);
      const shellC = name !== null && option.charCodeAt(0) === 0x2d && SHELL_NAME.test(name) && /^-[a-z]*c[a-z]*$/.test(option);
      vars = scope.derive(true, shellC ? texts.slice(x + 1).map((t) => (typeof t === 'string' ? t : UNKNOWN_OUTPUT)) : null);
    }
    new ShellReader(w, this.shared, vars, this.depth + 1, this.inBody()).script(0, null);
  }

  /** Built-ins that set variables: declarations, `read` and friends (unknowable), `unset`. */
  private builtin(name: string, texts: Word[], j: number, plain: boolean): void {
    // Most commands are none of them: one character code tells, before a set lookup.
    if (SETTER_INITIALS[name.charCodeAt(0)] !== 1 || !VARIABLE_SETTERS.has(name)) return;
    if (DECLARERS.has(name)) {
      // A loop with char-code tests, not a copied list and a regex per word: every line of a
      // source file may start with `export`.
      let exported = name === 'export';
      let nameref = false;
      for (let x = j + 1; x < texts.length; x += 1) {
        const w = one(texts[x]!);
        const first = w.charCodeAt(0);
        if (first === 0x2d /* - */ || first === 0x2b /* + */) {
          if (/^-[a-zA-Z]*x/.test(w)) exported = true;
          if (/^-[a-zA-Z]*n/.test(w) && name !== 'export') nameref = true;
        } else if (isAssignment(w)) {
          this.assignWord(this.vars, texts[x]!, plain && name !== 'local', exported, nameref);
        } else if (isName(w)) {
          if (exported) this.vars.markExported(w);
          if (nameref) this.vars.assign(w, UNKNOWN_VALUE, false);
        }
      }
      return;
    }
    const words = texts.slice(j + 1).map(one);
    if (READERS.has(name) || name === 'getopts') {
      for (const w of words) if (NAME.test(w)) this.vars.assign(w, UNKNOWN_VALUE, false);
    } else if (name === 'printf') {
      const v = words.indexOf('-v');
      if (v !== -1 && words[v + 1] !== undefined && NAME.test(words[v + 1]!)) this.vars.assign(words[v + 1]!, UNKNOWN_VALUE, false);
    } else if (name === 'unset') {
      for (const w of words) if (NAME.test(w)) this.vars.assign(w, EMPTY_VALUE, plain);
    }
  }

  /** `for NAME in WORDS`: NAME is each of the words (bounded); without `in`, the arguments: unknowable. */
  private loopVariable(texts: Word[], k: number): void {
    const word = texts[k + 1];
    if (word === undefined || !NAME.test(one(word))) return;
    const name = one(word);
    const alts = texts[k + 2] !== undefined && one(texts[k + 2]!) === 'in' ? texts.slice(k + 3).flat() : [UNKNOWN_OUTPUT];
    const value: Value = alts.length > MAX_ALTERNATIVES ? UNKNOWN_VALUE : { alts: alts.length === 0 ? [''] : alts.map((a) => this.shared.options.expandHome(a)), maybeUnset: false };
    this.vars.assign(name, value, true);
  }

  private assignWord(scope: VarScope, word: Word, replace: boolean, exported = false, unknowable = false): void {
    const m = ASSIGNMENT.exec(one(word))!;
    const name = m[1]!;
    let alts = alternatives(word).map((a) => this.assignedValue(a.slice(a.indexOf('=') + 1)));
    if (m[2] === '+') {
      const old = scope.lookup(name, false).alts;
      alts = old.length * alts.length > MAX_ALTERNATIVES ? [UNKNOWN_OUTPUT] : old.flatMap((o) => alts.map((a) => o + a));
      this.charge(alts);
    }
    scope.assign(name, unknowable ? UNKNOWN_VALUE : { alts, maybeUnset: false }, replace, exported);
  }

  /** An assigned value as the shell stores it: `~` expanded at the start and after each `:`. */
  private assignedValue(v: string): string {
    const home = this.shared.options.expandHome;
    const out = home(v);
    return out.includes(':~') ? out.replace(/:~(?=[/\\:]|$)/g, `:${home('~')}`) : out;
  }

  private changeDir(texts: Word[], x: number): void {
    let target = x + 1;
    while (target < texts.length && one(texts[target]!).charCodeAt(0) === 0x2d && /^-[LPe@]+$/.test(one(texts[target]!))) target += 1;
    const dir = texts[target];
    if (dir === undefined) {
      for (const d of this.value('HOME')) this.dir(d);
    } else if (one(dir) === '-') {
      // `cd -`: back to $OLDPWD, an earlier target unless the script or the environment set it.
      if (this.vars.assigned('OLDPWD') || !this.changedDir) for (const d of this.value('OLDPWD')) this.dir(d);
    } else {
      for (const d of alternatives(dir)) {
        this.dir(d);
        this.cdPath(d);
      }
    }
    this.changedDir = true;
  }

  /** A relative `cd` target is also looked for under each `$CDPATH` directory (when it can be known). */
  private cdPath(dir: string): void {
    // Whether CDPATH can be known first: without it (most readings) the target needs no test.
    if (!this.vars.assigned('CDPATH') && this.shared.options.environment === undefined) return;
    if (dir === '' || /^(?:[/\\~]|\.\.?(?:[/\\]|$))/.test(dir)) return;
    for (const alt of this.value('CDPATH')) {
      for (const entry of alt.split(':').slice(0, 16)) {
        if (entry !== '') this.dir(entry.endsWith('/') ? entry + dir : `${entry}/${dir}`);
      }
    }
  }

  private dir(word: string): void {
    this.shared.out.dirs.push(word);
    if (word.includes(UNKNOWN_OUTPUT)) this.shared.out.unknowable.push(word);
  }

  /** What the commands print, when that is known: echo, printf with `%s`, pwd, names. */
  private output(commands: Word[][]): string {
    const parts: string[] = [];
    for (const words of commands) {
      // Plain loops, not callbacks: one runs per substitution of a long script.
      const texts: string[] = [];
      let assignments = true;
      for (const w of words) {
        if (typeof w !== 'string') return UNKNOWN_OUTPUT;
        const t = w;
        if (t.includes(UNKNOWN_OUTPUT)) return UNKNOWN_OUTPUT;
        if (assignments && !isAssignment(t)) assignments = false;
        texts.push(t);
      }
      const name = texts[0]!;
      if (name === 'echo') {
        let k = 1;
        while (k < texts.length && texts[k]!.charCodeAt(0) === 0x2d && /^-[neE]+$/.test(texts[k]!)) k += 1;
        let printed = '';
        for (let x = k; x < texts.length; x += 1) printed += (x > k ? ' ' : '') + this.shared.options.expandHome(texts[x]!);
        parts.push(printed);
      } else if (name === 'printf') {
        const printed = printf(texts.slice(1).map((t) => this.shared.options.expandHome(t)));
        if (printed === null) return UNKNOWN_OUTPUT;
        parts.push(printed);
      } else if (name === 'pwd') {
        parts.push(CURRENT_DIR);
      } else if (name === 'cd' || name === 'pushd' || name === 'true' || name === ':' || assignments) {
        // No output; the directory change or assignment is recorded.
      } else if (NAME_PRODUCERS.has(name)) {
        parts.push('*');
      } else {
        return UNKNOWN_OUTPUT;
      }
    }
    return (parts.length === 1 ? parts[0]! : parts.join(' ')).trim();
  }
}

/** A word's first (or only) text. */
function one(word: Word): string {
  return typeof word === 'string' ? word : word[0]!;
}

/** A word's texts as a list. */
function alternatives(word: Word): string[] {
  return typeof word === 'string' ? [word] : word;
}

/** A word whose expansions have too many combinations: each multi-valued one is unknowable. */
function unknownSlots(cur: string): string {
  let out = '';
  let from = 0;
  for (let k = cur.indexOf(SLOT); k !== -1; k = cur.indexOf(SLOT, k + 2)) {
    out += cur.slice(from, k) + UNKNOWN_OUTPUT;
    from = k + 2;
  }
  return out + cur.slice(from);
}

/** `printf FORMAT ARGS…` with only `%s` and `%%` directives; null for anything else. */
function printf(args: string[]): string | null {
  const format = args[0];
  if (format === undefined) return '';
  const values = args.slice(1);
  const directives = format.match(/%./g) ?? [];
  if (directives.some((d) => d !== '%s' && d !== '%%')) return null;
  const slots = directives.filter((d) => d === '%s').length;
  const rounds = slots === 0 ? 1 : Math.max(1, Math.ceil(values.length / slots));
  let out = '';
  let v = 0;
  for (let r = 0; r < rounds; r += 1) {
    out += format.replace(/%[s%]/g, (d) => (d === '%%' ? '%' : (values[v++] ?? '')));
  }
  return out.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
}

const OPENER = 1;
const CLOSER = 2;
const PREFIX = 3;

/**
 * Reserved words at a command's start: OPENERS open a body whose assignments may not run (or
 * run again): `if`, `while`, `until`, `for`, `select`, `case`, `{`, `function`; CLOSERS close it:
 * `fi`, `done`, `esac`, `}`; PREFIXES may come before a command: `then`, `do`, `else`, `elif`,
 * `!`, `time`. 0 for any other word. A switch on the first character, not three set lookups:
 * it runs for the first word of every command.
 */
function reservedKind(w: string): number {
  switch (w.charCodeAt(0)) {
    case 0x21 /* ! */:
      return w === '!' ? PREFIX : 0;
    case 0x7b /* { */:
      return w === '{' ? OPENER : 0;
    case 0x7d /* } */:
      return w === '}' ? CLOSER : 0;
    case 0x63 /* c */:
      return w === 'case' ? OPENER : 0;
    case 0x64 /* d */:
      return w === 'do' ? PREFIX : w === 'done' ? CLOSER : 0;
    case 0x65 /* e */:
      return w === 'esac' ? CLOSER : w === 'else' || w === 'elif' ? PREFIX : 0;
    case 0x66 /* f */:
      return w === 'for' || w === 'function' ? OPENER : w === 'fi' ? CLOSER : 0;
    case 0x69 /* i */:
      return w === 'if' ? OPENER : 0;
    case 0x73 /* s */:
      return w === 'select' ? OPENER : 0;
    case 0x74 /* t */:
      return w === 'then' || w === 'time' ? PREFIX : 0;
    case 0x75 /* u */:
      return w === 'until' ? OPENER : 0;
    case 0x77 /* w */:
      return w === 'while' ? OPENER : 0;
    default:
      return 0;
  }
}

/** `NAME=` or `NAME+=` at the start; the `=` test first skips the regex for most words. */
function isAssignment(word: string): boolean {
  return word.indexOf('=') > 0 && ASSIGNMENT.test(word);
}

/** SCRIPT_LIKE, by char codes: a new word of a long text is tested once. */
function isScriptLike(w: string): boolean {
  const n = w.length;
  for (let k = 0; k < n; k += 1) {
    const c = w.charCodeAt(k);
    if (c < 0x80) {
      if (SCRIPT_ASCII[c] === 1 || (c === 0x24 && w.charCodeAt(k + 1) === 0x28)) return true;
    } else if (isUnicodeSpace(c)) return true;
  }
  return false;
}

/** `\s` above ASCII, as JavaScript's regular expressions read it. */
function isUnicodeSpace(c: number): boolean {
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

const SCRIPT_ASCII = (() => {
  const table = new Uint8Array(128);
  for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20]) table[c] = 1;
  for (const c of ';&|<>()`') table[c.charCodeAt(0)] = 1;
  return table;
})();

/** NAME, by char codes. */
function isName(w: string): boolean {
  const n = w.length;
  if (n === 0) return false;
  for (let k = 0; k < n; k += 1) {
    const c = w.charCodeAt(k);
    const letter = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
    if (!letter && (k === 0 || c < 0x30 || c > 0x39)) return false;
  }
  return true;
}

function hasSpace(text: string): boolean {
  return HAS_SPACE.test(text);
}

/**
 * Characters no branch of `pass` but the last treats specially: not one that may quote, expand,
 * separate, close or be a blank (`\s`, as the shell's word splitting in `append`). A stop the
 * loop then reads as ordinary is safe. Compared by code, not by a regex per run.
 */
function isPlain(code: number): boolean {
  if (code < 0x80) return PLAIN_ASCII[code] === 1;
  return !(code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff);
}

const PLAIN_ASCII = (() => {
  const table = new Uint8Array(128).fill(1);
  for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20]) table[c] = 0;
  for (const c of '\\\'"$`~;&|()<>{}') table[c.charCodeAt(0)] = 0;
  return table;
})();

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0b || code === 0x0c || code === 0x0d || code === 0xa0 || code === 0x3000 || code === 0xfeff || code === 0x2028 || code === 0x2029 || (code >= 0x2000 && code <= 0x200a);
}

function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|.)/gs, (_, esc: string) => {
    const c = esc[0]!;
    if (c === 'x' || c === 'u' || c === 'U') {
      const code = Number.parseInt(esc.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    if (/[0-7]/.test(c)) return String.fromCharCode(Number.parseInt(esc, 8) & 0xff);
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', f: '\f', v: '\v' };
    return simple[c] ?? c;
  });
}
