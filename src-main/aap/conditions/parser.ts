import RE2 from 're2';
import { ConditionSyntaxError, tokenize, type Token } from './lexer.js';

/*
 * A recursive-descent parser for the §4.6 condition language:
 *
 *   condition  := or
 *   or         := and ("or" and)*
 *   and        := unary ("and" unary)*
 *   unary      := "not" unary | primary
 *   primary    := "(" condition ")" | call | path [operator value | "contains" value
 *                 | "matches" string | ["not"] "in" "[" value ("," value)* "]"]
 *   call       := ("contains" | "matches") "(" path "," value ")"
 *   path       := identifier ("." identifier)*
 *   value      := string | number | true | false | null
 *
 * The right-hand side is always a literal: `action_type == purchase` would otherwise compare two
 * missing fields and always hold. `matches` patterns are compiled with RE2 here, so a pattern RE2
 * refuses is a load-time error and matching stays linear in the input (never JS RegExp).
 */

export type Literal = string | number | boolean | null;
type ComparisonOperator = '==' | '!=' | '>' | '<' | '>=' | '<=';

export type ConditionNode =
  | { kind: 'or' | 'and'; operands: ConditionNode[] }
  | { kind: 'not'; operand: ConditionNode }
  | { kind: 'truthy'; path: string[] }
  | { kind: 'compare'; path: string[]; operator: ComparisonOperator; value: Literal }
  | { kind: 'contains'; path: string[]; value: Literal }
  | { kind: 'matches'; path: string[]; pattern: RE2; source: string }
  | { kind: 'in'; path: string[]; values: Literal[] };

export interface ParseLimits {
  /** Nesting of parentheses and `not`. */
  maxDepth: number;
  maxPatternLength: number;
  maxListItems: number;
}

const RESERVED = new Set(['and', 'or', 'not', 'in', 'contains', 'matches', 'true', 'false', 'null']);
const FUNCTIONS = new Set(['contains', 'matches']);

function describe(token: Token): string {
  if (token.type === 'end') return 'the end of the condition';
  if (token.type === 'string') return `the string ${JSON.stringify(token.text)}`;
  if (token.type === 'number') return `the number ${token.text}`;
  return `"${token.text}"`;
}

class Parser {
  private index = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly limits: ParseLimits,
  ) {}

  parse(): ConditionNode {
    const node = this.or(0);
    const rest = this.peek();
    if (rest.type !== 'end') throw new ConditionSyntaxError(`unexpected ${describe(rest)} after a complete condition (join conditions with and / or)`, rest.position);
    return node;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== 'end') this.index += 1;
    return token;
  }

  private isWord(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.type === 'identifier' && token.text === word;
  }

  private expect(type: Token['type'], what: string): Token {
    const token = this.next();
    if (token.type !== type) throw new ConditionSyntaxError(`expected ${what}, found ${describe(token)}`, token.position);
    return token;
  }

  private enter(depth: number, at: Token): number {
    if (depth + 1 > this.limits.maxDepth) throw new ConditionSyntaxError(`nested more than ${this.limits.maxDepth} levels deep`, at.position);
    return depth + 1;
  }

  private or(depth: number): ConditionNode {
    const operands = [this.and(depth)];
    while (this.isWord('or')) {
      this.next();
      operands.push(this.and(depth));
    }
    return operands.length === 1 ? operands[0]! : { kind: 'or', operands };
  }

  private and(depth: number): ConditionNode {
    const operands = [this.unary(depth)];
    while (this.isWord('and')) {
      this.next();
      operands.push(this.unary(depth));
    }
    return operands.length === 1 ? operands[0]! : { kind: 'and', operands };
  }

  private unary(depth: number): ConditionNode {
    if (this.isWord('not')) {
      const inner = this.enter(depth, this.next());
      return { kind: 'not', operand: this.unary(inner) };
    }
    return this.primary(depth);
  }

  private primary(depth: number): ConditionNode {
    const token = this.peek();
    if (token.type === '(') {
      const inner = this.enter(depth, this.next());
      const node = this.or(inner);
      this.expect(')', 'a closing ")"');
      return node;
    }
    if (token.type === 'identifier' && FUNCTIONS.has(token.text) && this.peek(1).type === '(') return this.call();
    if (token.type !== 'identifier') throw new ConditionSyntaxError(`a condition compares a field; found ${describe(token)}`, token.position);
    const path = this.path();
    return this.comparison(path);
  }

  private path(): string[] {
    const first = this.expect('identifier', 'a field name');
    if (RESERVED.has(first.text)) throw new ConditionSyntaxError(`"${first.text}" is a reserved word, not a field name`, first.position);
    const path = [first.text];
    while (this.peek().type === '.') {
      this.next();
      path.push(this.expect('identifier', 'a field name after "."').text);
    }
    return path;
  }

  private literal(after: string): Literal {
    const token = this.next();
    if (token.type === 'string') return token.text;
    if (token.type === 'number') return token.number!;
    if (token.type === 'identifier' && token.text === 'true') return true;
    if (token.type === 'identifier' && token.text === 'false') return false;
    if (token.type === 'identifier' && token.text === 'null') return null;
    const hint = token.type === 'identifier' ? ` (a string needs quotes: "${token.text}")` : '';
    throw new ConditionSyntaxError(`expected a value after ${after} — a quoted string, a number, true, false or null — found ${describe(token)}${hint}`, token.position);
  }

  private pattern(at: Token): { pattern: RE2; source: string } {
    const token = this.next();
    if (token.type !== 'string') throw new ConditionSyntaxError(`matches needs a pattern in quotes, found ${describe(token)}`, token.position);
    if (token.text.length > this.limits.maxPatternLength) throw new ConditionSyntaxError(`pattern is ${token.text.length} characters; the maximum is ${this.limits.maxPatternLength}`, token.position);
    try {
      return { pattern: new RE2(token.text, 'u'), source: token.text };
    } catch (error) {
      throw new ConditionSyntaxError(`pattern ${JSON.stringify(token.text)} is not a valid RE2 expression: ${(error as Error).message}`, at.position);
    }
  }

  private comparison(path: string[]): ConditionNode {
    const token = this.peek();
    if (token.type === '(') {
      throw new ConditionSyntaxError(`"${path.join('.')}(" calls a function the language does not have; it has contains(field, value) and matches(field, "pattern")`, token.position);
    }
    if (token.type === 'operator') {
      this.next();
      const operator = token.text as ComparisonOperator;
      const value = this.literal(`"${operator}"`);
      if (operator !== '==' && operator !== '!=' && typeof value !== 'number' && typeof value !== 'string') {
        throw new ConditionSyntaxError(`"${operator}" compares numbers or strings, not ${String(value)}`, token.position);
      }
      return { kind: 'compare', path, operator, value };
    }
    if (this.isWord('contains')) {
      this.next();
      return { kind: 'contains', path, value: this.literal('contains') };
    }
    if (this.isWord('matches')) return { kind: 'matches', path, ...this.pattern(this.next()) };
    if (this.isWord('in')) return this.membership(path);
    if (this.isWord('not') && this.isWord('in', 1)) {
      this.next();
      return { kind: 'not', operand: this.membership(path) };
    }
    return { kind: 'truthy', path };
  }

  private membership(path: string[]): ConditionNode {
    this.next();
    this.expect('[', 'a list in [ ] after in');
    const values = [this.literal('[')];
    while (this.peek().type === ',') {
      this.next();
      values.push(this.literal('","'));
      if (values.length > this.limits.maxListItems) throw new ConditionSyntaxError(`a list holds at most ${this.limits.maxListItems} values`, this.peek().position);
    }
    this.expect(']', 'a closing "]"');
    return { kind: 'in', path, values };
  }

  private call(): ConditionNode {
    const name = this.next();
    this.expect('(', 'an opening "("');
    const path = this.path();
    this.expect(',', `"," between the field and the ${name.text === 'matches' ? 'pattern' : 'value'}`);
    const node: ConditionNode = name.text === 'matches' ? { kind: 'matches', path, ...this.pattern(name) } : { kind: 'contains', path, value: this.literal('","') };
    this.expect(')', 'a closing ")"');
    return node;
  }
}

export function parseCondition(source: string, limits: ParseLimits): ConditionNode {
  return new Parser(tokenize(source), limits).parse();
}
