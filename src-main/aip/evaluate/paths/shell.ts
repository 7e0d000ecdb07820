/*
 * Shell reading for the protected-path matcher (issue 9 item 8): the words a POSIX shell would
 * see in a command string, with quotes removed, escapes decoded and command substitutions
 * (`$(…)`, backquotes) evaluated where their output can be known (`echo`, `printf '%s'`, `pwd`,
 * nested). Words that hold shell syntax (`bash -c 'cd ~ && cat .ssh/id_rsa'`, `ssh host '…'`)
 * are read again as scripts, up to `maxDepth` levels; each level reads each character once, so
 * the work stays linear in the text. The matcher resolves the words; this module only reads.
 */

/** Stands for the output of a command substitution that cannot be known. */
export const UNKNOWN_OUTPUT = '\u0002';
/** Stands for the shell's current directory (`$PWD`, `$(pwd)`): the matcher puts every candidate in. */
export const CURRENT_DIR = '\u0001';

export interface ShellReading {
  /** Every word at every depth. */
  words: string[];
  /** Directories the script changes into (`cd`, `pushd`, `-C`, `--cwd=`…), in order; a bare `cd` is `~`. */
  dirs: string[];
  /** Words in which an unknowable output is glued to path text, or is a directory changed into. */
  unknowable: string[];
}

export interface ShellOptions {
  win: boolean;
  /** Nested scripts read again (`bash -c '…'`, substitutions inside substitutions). */
  maxDepth: number;
  /** `~`, `$HOME`: what `echo ~` prints. */
  expandHome(word: string): string;
}

/** Commands whose output is one name without a separator: a one-segment wildcard. */
const NAME_PRODUCERS = new Set(['date', 'whoami', 'id', 'hostname', 'uname', 'nproc', 'arch', 'logname']);
const DIR_OPTIONS = new Set(['-C', '--cwd', '--directory', '--chdir', '--workdir', '--work-dir', '--working-directory']);
const DIR_OPTION_EQ = /^--(?:cwd|directory|chdir|workdir|work-dir|working-directory)=/;
/** Text that holds shell syntax worth reading again as a script. */
const SCRIPT_LIKE = /[\s;&|<>()`]|\$\(/;
/** Path text next to an unknowable output: it may then be any path. */
const PATH_TEXT = /[/\\~.]/;

export function readShell(text: string, options: ShellOptions): ShellReading {
  const out: ShellReading = { words: [], dirs: [], unknowable: [] };
  new ShellReader(text, options, out, 0).script(0, null);
  return out;
}

class ShellReader {
  private i = 0;

  constructor(
    private readonly s: string,
    private readonly options: ShellOptions,
    private readonly out: ShellReading,
    private readonly depth: number,
  ) {}

  /**
   * Reads commands from `start` until `close` (`)` or a backquote) or the end; returns the
   * substitution's output (known text, or containing UNKNOWN_OUTPUT) and leaves `i` after `close`.
   */
  script(start: number, close: ')' | '`' | null): { end: number; output: string } {
    const s = this.s;
    const n = s.length;
    this.i = start;
    const commands: string[][] = [];
    let command: string[] = [];
    let cur = '';
    let inWord = false;
    const endWord = (): void => {
      if (inWord) command.push(cur);
      cur = '';
      inWord = false;
    };
    const endCommand = (): void => {
      endWord();
      if (command.length > 0) commands.push(command);
      command = [];
    };
    /** Appends substitution output; unquoted, its blanks split words as the shell does. */
    const append = (output: string, quoted: boolean): void => {
      if (quoted) {
        cur += output;
        inWord = true;
        return;
      }
      const pieces = output.split(/\s+/);
      for (let k = 0; k < pieces.length; k += 1) {
        if (k > 0) endWord();
        if (pieces[k] !== '') {
          cur += pieces[k];
          inWord = true;
        }
      }
    };
    while (this.i < n) {
      const c = s[this.i]!;
      if (close !== null && c === close) {
        this.i += 1;
        break;
      }
      if (c === '\\' && !this.options.win) {
        if (this.i + 1 < n && s[this.i + 1] !== '\n') {
          cur += s[this.i + 1];
          inWord = true;
        }
        this.i += 2;
      } else if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        cur += end === -1 ? s.slice(this.i + 1) : s.slice(this.i + 1, end);
        inWord = true;
        this.i = end === -1 ? n : end + 1;
      } else if (c === '"') {
        this.i += 1;
        inWord = true;
        while (this.i < n && s[this.i] !== '"') {
          const d = s[this.i]!;
          if (d === '\\' && this.i + 1 < n && '"\\$`'.includes(s[this.i + 1]!)) {
            cur += s[this.i + 1];
            this.i += 2;
          } else if (d === '$' || d === '`') {
            const sub = this.dollarOrBackquote();
            if (sub === null) {
              cur += d;
              this.i += 1;
            } else {
              append(sub, true);
            }
          } else {
            cur += d;
            this.i += 1;
          }
        }
        this.i += 1;
      } else if (c === '$' && s[this.i + 1] === "'") {
        const end = s.indexOf("'", this.i + 2);
        cur += decodeAnsiC(end === -1 ? s.slice(this.i + 2) : s.slice(this.i + 2, end));
        inWord = true;
        this.i = end === -1 ? n : end + 1;
      } else if (c === '$' || c === '`') {
        const sub = this.dollarOrBackquote();
        if (sub === null) {
          cur += c;
          inWord = true;
          this.i += 1;
        } else {
          append(sub, false);
        }
      } else if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
        // Process substitution: a /dev/fd path whose commands are read like any other.
        endWord();
        this.nested(this.i + 2, ')');
      } else if (c === '\n' || c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
        endCommand();
        this.i += 1;
      } else if (isBlank(s.charCodeAt(this.i)) || c === '<' || c === '>') {
        endWord();
        this.i += 1;
      } else {
        cur += c;
        inWord = true;
        this.i += 1;
      }
    }
    endCommand();
    for (const cmd of commands) this.command(cmd);
    // The top level prints into nothing the matcher reads.
    return { end: this.i, output: close === null ? '' : this.output(commands) };
  }

  /** At `$` or a backquote: a substitution's output, `$PWD`, or null when it is a plain `$`. */
  private dollarOrBackquote(): string | null {
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
    if (s.startsWith('PWD', this.i + 1) && !/[A-Za-z0-9_]/.test(s[this.i + 4] ?? '')) {
      this.i += 4;
      return CURRENT_DIR;
    }
    if (s.startsWith('{PWD}', this.i + 1)) {
      this.i += 6;
      return CURRENT_DIR;
    }
    return null;
  }

  /** A substitution: read at the next depth (or not at all past the limit: unknowable). */
  private nested(start: number, close: ')' | '`'): string {
    if (this.depth >= this.options.maxDepth) {
      const end = this.s.indexOf(close, start);
      this.i = end === -1 ? this.s.length : end + 1;
      return UNKNOWN_OUTPUT;
    }
    const inner = new ShellReader(this.s, this.options, this.out, this.depth + 1);
    const { end, output } = inner.script(start, close);
    this.i = end;
    return output;
  }

  /** Records one command's words, directories and nested scripts. */
  private command(texts: string[]): void {
    for (let k = 0; k < texts.length; k += 1) {
      const w = texts[k]!;
      this.out.words.push(w);
      const next = texts[k + 1];
      if (w === 'cd' || w === 'pushd') {
        let target = k + 1;
        while (target < texts.length && /^-[LPe@]+$/.test(texts[target]!)) target += 1;
        const dir = texts[target];
        if (dir === undefined) this.dir('~');
        else if (dir !== '-') this.dir(dir);
      } else if (DIR_OPTIONS.has(w) && next !== undefined) {
        this.dir(next);
      } else if (DIR_OPTION_EQ.test(w)) {
        this.dir(w.slice(w.indexOf('=') + 1));
      }
      if (w.includes(UNKNOWN_OUTPUT) && PATH_TEXT.test(w.replaceAll(UNKNOWN_OUTPUT, ''))) this.out.unknowable.push(w);
      // `bash -c '…'`, `ssh host '…'`, `eval "…"`: the word is a script of its own.
      if (this.depth < this.options.maxDepth && k > 0 && SCRIPT_LIKE.test(w)) {
        new ShellReader(w, this.options, this.out, this.depth + 1).script(0, null);
      }
    }
  }

  private dir(word: string): void {
    this.out.dirs.push(word);
    if (word.includes(UNKNOWN_OUTPUT)) this.out.unknowable.push(word);
  }

  /** What the commands print, when that is known: echo, printf with `%s`, pwd, names. */
  private output(commands: string[][]): string {
    const parts: string[] = [];
    for (const texts of commands) {
      const name = texts[0]!;
      if (texts.some((t) => t.includes(UNKNOWN_OUTPUT))) return UNKNOWN_OUTPUT;
      if (name === 'echo') {
        let k = 1;
        while (k < texts.length && /^-[neE]+$/.test(texts[k]!)) k += 1;
        parts.push(texts.slice(k).map((t) => this.options.expandHome(t)).join(' '));
      } else if (name === 'printf') {
        const printed = printf(texts.slice(1).map((t) => this.options.expandHome(t)));
        if (printed === null) return UNKNOWN_OUTPUT;
        parts.push(printed);
      } else if (name === 'pwd') {
        parts.push(CURRENT_DIR);
      } else if (name === 'cd' || name === 'pushd' || name === 'true' || name === ':') {
        // No output; the directory change is recorded.
      } else if (NAME_PRODUCERS.has(name)) {
        parts.push('*');
      } else {
        return UNKNOWN_OUTPUT;
      }
    }
    return parts.join(' ').trim();
  }
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

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0b || code === 0x0c || code === 0x0d || code === 0xa0 || code === 0x3000 || code === 0xfeff || code === 0x2028 || code === 0x2029 || (code >= 0x2000 && code <= 0x200a);
}

export function decodeAnsiC(body: string): string {
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
