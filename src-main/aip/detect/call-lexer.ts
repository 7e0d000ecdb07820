/*
 * Splits a command an agent asks to run into simple commands and their words, just well enough
 * for the chain detector to say what the command does (call-command.ts): which programs it
 * starts, what it redirects into or out of, and which paths and hosts it names. It is not a
 * shell and errs towards seeing more commands, never fewer: a quoted string with blanks or
 * operators in it (`bash -c "curl …"`, `sh -c '…'`) is lexed again as commands of its own, down
 * to MAX_NESTING, so a command hidden in quotes is still seen. A here-document's body is data,
 * not commands, and is skipped. One pass, bounded by COMMAND_MAX characters and MAX_WORDS words.
 *
 * Redirections become words of their own so the analysis finds their targets: `>` (also `>>`,
 * `&>`), `<`, `<<` and `<<<`; descriptor duplications (`2>&1`, `>&2`) and the descriptor number
 * before an operator are dropped.
 */

const COMMAND_MAX = 16_384;
const MAX_WORDS = 2_048;
const MAX_NESTING = 3;

const SEPARATORS = new Set([';', '&', '|', '\n', '\r', '(', ')', '`', '{', '}']);
const isBlank = (c: string): boolean => c === ' ' || c === '\t' || c === '\v' || c === '\f';
const isDigits = (s: string): boolean => s.length > 0 && [...s].every((c) => c >= '0' && c <= '9');

/** The simple commands of `text` (capped), each as its words, redirection operators included. */
export function lexCommands(text: string): string[][] {
  const out: string[][] = [];
  lex(text.length > COMMAND_MAX ? text.slice(0, COMMAND_MAX) : text, 0, out, { words: MAX_WORDS });
  return out;
}

function commandLike(inner: string): boolean {
  for (const c of inner) if (isBlank(c) || SEPARATORS.has(c) || c === '>' || c === '<') return true;
  return false;
}

function lex(text: string, depth: number, out: string[][], budget: { words: number }): void {
  let word = '';
  let segment: string[] = [];
  let heredoc: string | null = null;
  const endWord = (): void => {
    if (word !== '' && budget.words > 0) {
      budget.words--;
      segment.push(word);
    }
    word = '';
  };
  const endSegment = (): void => {
    endWord();
    if (segment.length > 0) out.push(segment);
    segment = [];
  };
  for (let i = 0; i < text.length && budget.words > 0; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '\\') {
      if (next !== undefined && next !== '\n') word += next;
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      let close = text.indexOf(c, i + 1);
      if (close < 0) close = text.length;
      const inner = text.slice(i + 1, close);
      if (depth < MAX_NESTING && commandLike(inner)) {
        endWord();
        lex(inner, depth + 1, out, budget);
      } else {
        word += inner;
      }
      i = close;
      continue;
    }
    if (c === '\n' && heredoc !== null) {
      endSegment();
      i = skipHeredoc(text, i, heredoc);
      heredoc = null;
      continue;
    }
    if (c === '$' && next === '(') {
      endSegment();
      i++;
      continue;
    }
    if (c === '>' || c === '<' || (c === '&' && next === '>')) {
      if (isDigits(word)) word = '';
      endWord();
      i = c === '&' ? i + 1 : i;
      let op = text[i]!;
      while (text[i + 1] === op[0] && op.length < 3) op += text[++i];
      if (text[i + 1] === '&' || text[i + 1] === '(') {
        // A descriptor duplication (`2>&1`) has no file; a process substitution (`<(…)`) is a command.
        while (text[i + 1] === '&' || isDigits(text[i + 1] ?? '') || text[i + 1] === '-') i++;
        continue;
      }
      segment.push(op === '>>' || op === '>' ? '>' : op);
      if (op === '<<') heredoc = readHeredocDelimiter(text, i + 1);
      continue;
    }
    if (SEPARATORS.has(c)) {
      endSegment();
      continue;
    }
    if (isBlank(c)) {
      endWord();
      continue;
    }
    word += c;
  }
  endSegment();
}

/** The delimiter word after `<<` (`EOF`, `'EOF'`, `-EOF`), quotes removed; '' when there is none. */
function readHeredocDelimiter(text: string, from: number): string {
  let i = from;
  if (text[i] === '-') i++;
  while (i < text.length && isBlank(text[i]!)) i++;
  let word = '';
  for (; i < text.length && word.length < 64; i++) {
    const c = text[i]!;
    if (isBlank(c) || c === '\n' || SEPARATORS.has(c)) break;
    if (c !== "'" && c !== '"') word += c;
  }
  return word;
}

/** The index of the newline ending the here-document whose body starts after `newline`, or the text's end. */
function skipHeredoc(text: string, newline: number, delimiter: string): number {
  if (delimiter === '') return newline;
  let lineStart = newline + 1;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    if (text.slice(lineStart, lineEnd).trim() === delimiter) return lineEnd;
    lineStart = lineEnd + 1;
  }
  return text.length;
}
