/*
 * A small, bounded lexer for one POSIX/bash command line, written for the shell-command analysis
 * (shell.ts): it is not a shell. It splits the line into simple commands and their words the way
 * bash would for the cases that matter to a reader looking for disguises, and it keeps, for every
 * word, both what bash would see (`value`: quotes removed, backslashes and `$'…'` escapes undone)
 * and how it was written (`flags`), because the disguise is the difference between the two.
 * One left-to-right pass over at most the caller's cap; substitutions are recorded as inner text
 * for the caller to analyse again (depth-capped there), never expanded here. Never throws.
 */

interface WordFlags {
  /** A backslash between two characters of the word (`r\m`); a leading one (`\rm`, alias bypass) is not counted. */
  innerBackslash: boolean;
  /** An empty `''`/`""` pair, or a quote boundary between two letters (`r''m`, `r"m"`). */
  splitQuotes: boolean;
  /** The whole word is one quoted string (`"/opt/my tool/run"`). */
  fullyQuoted: boolean;
  /** An ANSI-C `$'…'` string with escapes in it. */
  ansiC: boolean;
  /** `` `…` `` or `$(…)` inside the word. */
  substitution: boolean;
  /** `$NAME` or `${…}` inside the word. */
  variable: boolean;
  /** An unquoted `{a,b}` brace expansion. */
  braceComma: boolean;
}

export interface Word {
  /** As written. */
  raw: string;
  /** What bash passes on (substitutions and variables left as their text). */
  value: string;
  /** Offsets in the lexed text. */
  start: number;
  end: number;
  flags: WordFlags;
  /** The text inside each `` `…` ``, `$(…)` and `<(…)` of the word. */
  inner: string[];
  /** Names of the variables the word expands (`CMD` for `$CMD` / `${CMD}`). */
  variables: string[];
}

interface Redirect {
  /** `>`, `>>`, `<`, `&>`, `<<<`… as written, without a leading fd number. */
  op: string;
  target: Word | null;
}

export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
  /** The operator that ended it: `|`, `;`, `&&`, `||`, `&`, newline or '' at the end. */
  next: string;
}

const BRACE_WINDOW = 256;
const SPECIAL = new Set([' ', '\t', '\r', '\n', ';', '|', '&', '(', ')', '<', '>', '\\', "'", '"', '$', '`', '{', '#']);
const isFdChar = (c: string | undefined): boolean => c !== undefined && ((c >= '0' && c <= '9') || c === '-');
const isHex = (c: string | undefined): boolean => c !== undefined && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
const allDigits = (s: string): boolean => s.length > 0 && [...s].every((c) => c >= '0' && c <= '9');
const hasAny = (s: string, chars: string): boolean => [...chars].some((c) => s.includes(c));
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r';
/** A letter or digit of any script (single characters only, so the test is constant time). */
const isLetter = (c: string | undefined): boolean => c !== undefined && (c.toLowerCase() !== c.toUpperCase() || (c >= '0' && c <= '9'));
const isNameStart = (c: string | undefined): boolean => c !== undefined && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_');
const isNameChar = (c: string | undefined): boolean => isNameStart(c) || (c !== undefined && c >= '0' && c <= '9');

const ANSI_SIMPLE: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** The end (exclusive) of a `(`…`)` group starting just after its `(`, quotes respected; text length when unclosed. */
function closingParen(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\\') i += 1;
    else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      i = close < 0 ? text.length : close;
    } else if (c === '(') depth += 1;
    else if (c === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return text.length;
}

/** Decodes the body of `$'…'` starting at `from` (just after the opening quote); returns the value and the index of the closing quote. */
function ansiC(text: string, from: number): { value: string; close: number; escaped: boolean } {
  let value = '';
  let escaped = false;
  let i = from;
  for (; i < text.length && text[i] !== "'"; i += 1) {
    if (text[i] !== '\\' || i + 1 >= text.length) {
      value += text[i];
      continue;
    }
    escaped = true;
    const n = text[i + 1]!;
    if (n >= '0' && n <= '7') {
      let j = i + 1;
      let digits = '';
      while (j < text.length && digits.length < 3 && text[j]! >= '0' && text[j]! <= '7') digits += text[j++];
      value += String.fromCharCode(parseInt(digits, 8) & 0xff);
      i = j - 1;
    } else if (n === 'x' || n === 'u' || n === 'U') {
      const max = n === 'x' ? 2 : n === 'u' ? 4 : 8;
      let j = i + 2;
      let digits = '';
      while (j < text.length && digits.length < max && isHex(text[j])) digits += text[j++];
      const code = digits ? parseInt(digits, 16) : NaN;
      value += Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
      i = j - 1;
    } else {
      value += ANSI_SIMPLE[n] ?? n;
      i += 1;
    }
  }
  return { value, close: i, escaped };
}

function newWord(start: number): Word {
  return {
    raw: '',
    value: '',
    start,
    end: start,
    flags: { innerBackslash: false, splitQuotes: false, fullyQuoted: false, ansiC: false, substitution: false, variable: false, braceComma: false },
    inner: [],
    variables: [],
  };
}

/** Splits `text` into simple commands. */
export function lexCommandLine(text: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [], next: '' };
  let word = null as Word | null;
  let pendingRedirect: Redirect | null = null;
  let quoteParts = 0;

  const finishWord = (end: number): void => {
    if (word === null) return;
    word.end = end;
    word.raw = text.slice(word.start, end);
    const raw = word.raw;
    const first = raw[0];
    word.flags.fullyQuoted = quoteParts === 1 && (first === '"' || first === "'") && raw[raw.length - 1] === first;
    if (raw.includes("''") || raw.includes('""')) word.flags.splitQuotes = true;
    if (!word.flags.fullyQuoted && quoteParts > 0) {
      for (let i = 1; i < raw.length - 1; i += 1) {
        if ((raw[i] === '"' || raw[i] === "'") && isLetter(raw[i - 1]) && isLetter(raw[i + 1])) word.flags.splitQuotes = true;
      }
    }
    if (pendingRedirect !== null) {
      pendingRedirect.target = word;
      current.redirects.push(pendingRedirect);
      pendingRedirect = null;
    } else current.words.push(word);
    word = null;
    quoteParts = 0;
  };
  const finishCommand = (next: string): void => {
    if (pendingRedirect !== null) current.redirects.push(pendingRedirect);
    pendingRedirect = null;
    current.next = next;
    if (current.words.length > 0 || current.redirects.length > 0) commands.push(current);
    current = { words: [], redirects: [], next: '' };
  };
  const ensureWord = (at: number): Word => (word ??= newWord(at));

  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (isSpace(c)) {
      finishWord(i);
      continue;
    }
    if (c === '#' && word === null) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl - 1;
      continue;
    }
    if (c === '\n' || c === ';' || c === '|' || c === '&' || c === ')' || (c === '(' && word === null)) {
      finishWord(i);
      if (c === '&' && text[i + 1] === '>') {
        pendingRedirect = { op: '&>', target: null };
        i += text[i + 2] === '>' ? 2 : 1;
        continue;
      }
      const two = text.slice(i, i + 2);
      const op = two === '&&' || two === '||' || two === ';;' || two === '|&' ? two : c;
      i += op.length - 1;
      finishCommand(op === '(' || op === ')' ? ';' : op);
      continue;
    }
    if ((c === '<' || c === '>') && text[i + 1] === '(') {
      // Process substitution: a word of its own whose inner text is a command.
      const w = ensureWord(i);
      const close = closingParen(text, i + 2);
      w.inner.push(text.slice(i + 2, close));
      w.flags.substitution = true;
      w.value += text.slice(i, close + 1);
      i = close;
      continue;
    }
    if (c === '<' || c === '>') {
      // A leading fd number (`2>`) belongs to the operator, not to a word.
      if (word !== null && allDigits(text.slice(word.start, i))) word = null;
      else finishWord(i);
      let j = i + 1;
      while (j < text.length && j < i + 3 && (text[j] === '<' || text[j] === '>' || text[j] === '&' || text[j] === '|')) j += 1;
      let op = text.slice(i, j);
      if (op.endsWith('&') && isFdChar(text[j])) {
        while (j < text.length && isFdChar(text[j])) j += 1;
        op = text.slice(i, j);
        current.redirects.push({ op, target: null });
      } else pendingRedirect = { op, target: null };
      i = j - 1;
      continue;
    }
    const w = ensureWord(i);
    if (c === '\\') {
      const n = text[i + 1];
      if (n === '\n') {
        i += 1;
        continue;
      }
      if (i > w.start && n !== undefined && isLetter(n)) w.flags.innerBackslash = true;
      if (n !== undefined) w.value += n;
      i += 1;
    } else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const end = close < 0 ? text.length : close;
      w.value += text.slice(i + 1, end);
      quoteParts += 1;
      i = end;
    } else if (c === '$' && text[i + 1] === "'") {
      const decoded = ansiC(text, i + 2);
      w.value += decoded.value;
      if (decoded.escaped) w.flags.ansiC = true;
      quoteParts += 1;
      i = decoded.close;
    } else if (c === '"') {
      quoteParts += 1;
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j += 1) {
        const d = text[j]!;
        if (d === '\\' && j + 1 < text.length && '$`"\\\n'.includes(text[j + 1]!)) w.value += text[++j];
        else if (d === '$' && text[j + 1] === '(') j = substitution(w, j + 2, '$(') ;
        else if (d === '`') j = backtick(w, j);
        else if (d === '$' && (isNameStart(text[j + 1]) || text[j + 1] === '{')) j = variable(w, j);
        else w.value += d;
      }
      i = j;
    } else if (c === '$' && text[i + 1] === '(') {
      i = substitution(w, i + 2, '$(');
    } else if (c === '`') {
      i = backtick(w, i);
    } else if (c === '$' && (isNameStart(text[i + 1]) || text[i + 1] === '{')) {
      i = variable(w, i);
    } else if (c === '{') {
      // Looked for within a short window, so a line of many `{` stays linear.
      const window = text.slice(i + 1, i + 1 + BRACE_WINDOW);
      const close = window.indexOf('}');
      const body = close < 0 ? '' : window.slice(0, close);
      if (body.includes(',') && !hasAny(body, ' \t\n\'"')) w.flags.braceComma = true;
      w.value += c;
    } else {
      // A run of ordinary characters is appended in one piece.
      let j = i + 1;
      while (j < text.length && !SPECIAL.has(text[j]!)) j += 1;
      w.value += text.slice(i, j);
      i = j - 1;
    }
  }
  finishWord(text.length);
  finishCommand('');
  return commands;

  function substitution(w: Word, from: number, open: string): number {
    const close = closingParen(text, from);
    w.inner.push(text.slice(from, close));
    w.flags.substitution = true;
    w.value += `${open}${text.slice(from, close)})`;
    return close;
  }
  function backtick(w: Word, at: number): number {
    const close = text.indexOf('`', at + 1);
    const end = close < 0 ? text.length : close;
    w.inner.push(text.slice(at + 1, end));
    w.flags.substitution = true;
    w.value += text.slice(at, end + 1);
    return end;
  }
  function variable(w: Word, at: number): number {
    w.flags.variable = true;
    if (text[at + 1] === '{') {
      const close = text.indexOf('}', at + 2);
      const end = close < 0 ? text.length : close;
      let k = at + 2;
      while (k < end && isNameChar(text[k])) k += 1;
      if (k > at + 2) w.variables.push(text.slice(at + 2, k));
      w.value += text.slice(at, end + 1);
      return end;
    }
    let j = at + 1;
    while (j < text.length && isNameChar(text[j])) j += 1;
    w.variables.push(text.slice(at + 1, j));
    w.value += text.slice(at, j);
    return j - 1;
  }
}
