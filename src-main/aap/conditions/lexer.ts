/*
 * Tokens of the §4.6 condition language. Every character is accounted for: anything the grammar
 * does not know is an error with its column, never skipped, so a condition is either read whole or
 * refused (a trigger that silently never fires is worse than a card that does not load).
 */

type TokenType = 'identifier' | 'string' | 'number' | 'operator' | '(' | ')' | '[' | ']' | ',' | '.' | 'end';

export interface Token {
  type: TokenType;
  /** The identifier, operator or punctuation as written; a string's decoded value; a number's source text. */
  text: string;
  /** A number token's value. */
  number?: number;
  /** Zero-based column of the token's first character. */
  position: number;
}

export class ConditionSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`column ${position + 1}: ${message}`);
    this.name = 'ConditionSyntaxError';
  }
}

const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_]/;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "'": "'", '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
const PUNCTUATION = new Set(['(', ')', '[', ']', ',', '.']);

function readString(source: string, start: number): { value: string; end: number } {
  const quote = source[start]!;
  let value = '';
  let i = start + 1;
  while (i < source.length) {
    const char = source[i]!;
    if (char === quote) return { value, end: i + 1 };
    if (char !== '\\') {
      value += char;
      i += 1;
      continue;
    }
    const next = source[i + 1];
    if (next === 'u') {
      const hex = source.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new ConditionSyntaxError('\\u must be followed by four hex digits', i);
      value += String.fromCharCode(parseInt(hex, 16));
      i += 6;
    } else if (next !== undefined && Object.hasOwn(ESCAPES, next)) {
      value += ESCAPES[next];
      i += 2;
    } else {
      throw new ConditionSyntaxError(`unknown escape \\${next ?? ''} in a string`, i);
    }
  }
  throw new ConditionSyntaxError(`string opened with ${quote} is never closed`, start);
}

function readNumber(source: string, start: number): Token {
  NUMBER.lastIndex = start;
  const match = NUMBER.exec(source);
  if (!match) throw new ConditionSyntaxError(`"-" must start a number, as in -5 or -0.5`, start);
  const end = start + match[0].length;
  const after = source[end];
  if (after !== undefined && (IDENTIFIER_PART.test(after) || after === '.')) {
    throw new ConditionSyntaxError(`malformed number "${source.slice(start, end + 1)}"`, start);
  }
  return { type: 'number', text: match[0], number: Number(match[0]), position: start };
}

function readOperator(source: string, i: number): Token | null {
  const two = source.slice(i, i + 2);
  if (two === '>=' || two === '<=' || two === '==' || two === '!=') return { type: 'operator', text: two, position: i };
  const one = source[i]!;
  if (one === '>' || one === '<') return { type: 'operator', text: one, position: i };
  if (one === '=') throw new ConditionSyntaxError('"=" is not an operator; compare with ==', i);
  if (one === '!') throw new ConditionSyntaxError('"!" is not an operator; use != or not', i);
  if (two === '&&' || two === '||') throw new ConditionSyntaxError(`"${two}" is not an operator; use ${two === '&&' ? 'and' : 'or'}`, i);
  return null;
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      i += 1;
    } else if (IDENTIFIER_START.test(char)) {
      const start = i;
      while (i < source.length && IDENTIFIER_PART.test(source[i]!)) i += 1;
      tokens.push({ type: 'identifier', text: source.slice(start, i), position: start });
    } else if (char === '"' || char === "'") {
      const { value, end } = readString(source, i);
      tokens.push({ type: 'string', text: value, position: i });
      i = end;
    } else if ((char >= '0' && char <= '9') || char === '-') {
      const token = readNumber(source, i);
      tokens.push(token);
      i += token.text.length;
    } else if (PUNCTUATION.has(char)) {
      tokens.push({ type: char as TokenType, text: char, position: i });
      i += 1;
    } else {
      const operator = readOperator(source, i);
      if (!operator) throw new ConditionSyntaxError(`unexpected character ${JSON.stringify(char)}`, i);
      tokens.push(operator);
      i += operator.text.length;
    }
  }
  tokens.push({ type: 'end', text: '', position: source.length });
  return tokens;
}
