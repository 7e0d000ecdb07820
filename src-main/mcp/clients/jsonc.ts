/*
 * A small JSON / JSONC parser that remembers where every value sits in the text, so that a
 * client configuration can be edited by splicing only the values that change: indentation, key
 * order, comments, line endings and everything else stay byte for byte.
 *
 * Strict mode is RFC 8259 JSON (plus a leading UTF-8 byte-order mark, which is skipped and kept).
 * JSONC mode also accepts `//` and `/* *\/` comments and trailing commas, as VS Code does.
 * Duplicate keys are refused in both modes: a client would silently use one of them and an edit
 * of the other would be a wrap that does not take effect.
 */

export type JsonNode = JsonObjectNode | JsonArrayNode | JsonScalarNode;

export interface JsonObjectNode {
  kind: 'object';
  start: number;
  end: number;
  props: JsonProp[];
}

export interface JsonArrayNode {
  kind: 'array';
  start: number;
  end: number;
  items: JsonNode[];
}

export interface JsonScalarNode {
  kind: 'string' | 'number' | 'boolean' | 'null';
  start: number;
  end: number;
  value: string | number | boolean | null;
}

export interface JsonProp {
  key: string;
  keyStart: number;
  keyEnd: number;
  value: JsonNode;
}

export interface ParseOptions {
  /** Accept comments and trailing commas (JSONC, as VS Code reads its files). */
  jsonc: boolean;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${line}:${column} ${message}`);
    this.name = 'JsonSyntaxError';
  }
}

const MAX_DEPTH = 256;

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

export function parseJsonText(text: string, options: ParseOptions): JsonNode {
  return new Parser(text, options).parseDocument();
}

class Parser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly options: ParseOptions,
  ) {}

  parseDocument(): JsonNode {
    if (this.text.charCodeAt(0) === 0xfeff) this.pos = 1;
    this.skipTrivia();
    if (this.pos >= this.text.length) this.fail('the file is empty; expected a JSON object');
    const node = this.parseValue(0);
    this.skipTrivia();
    if (this.pos < this.text.length) this.fail(`unexpected ${this.describe()} after the end of the JSON value`);
    return node;
  }

  private fail(message: string, at = this.pos): never {
    const { line, column } = lineColumn(this.text, at);
    throw new JsonSyntaxError(message, at, line, column);
  }

  private describe(): string {
    if (this.pos >= this.text.length) return 'end of file';
    return `character ${JSON.stringify(this.text[this.pos])}`;
  }

  private skipTrivia(): void {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        this.pos++;
      } else if (c === 0x2f /* / */ && (text[this.pos + 1] === '/' || text[this.pos + 1] === '*')) {
        if (!this.options.jsonc) this.fail('comments are not allowed in this file (plain JSON)');
        if (text[this.pos + 1] === '/') {
          const newline = text.indexOf('\n', this.pos);
          this.pos = newline === -1 ? text.length : newline;
        } else {
          const close = text.indexOf('*/', this.pos + 2);
          if (close === -1) this.fail('unterminated /* comment');
          this.pos = close + 2;
        }
      } else {
        return;
      }
    }
  }

  private parseValue(depth: number): JsonNode {
    if (depth > MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH} levels`);
    const c = this.text[this.pos];
    if (c === '{') return this.parseObject(depth);
    if (c === '[') return this.parseArray(depth);
    if (c === '"') {
      const start = this.pos;
      const value = this.parseString();
      return { kind: 'string', start, end: this.pos, value };
    }
    const start = this.pos;
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return { kind: value === null ? 'null' : 'boolean', start, end: this.pos, value };
      }
    }
    const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    number.lastIndex = this.pos;
    const match = number.exec(this.text);
    if (match && match[0].length > 0) {
      this.pos += match[0].length;
      return { kind: 'number', start, end: this.pos, value: Number(match[0]) };
    }
    return this.fail(`expected a JSON value, found ${this.describe()}`);
  }

  private parseString(): string {
    const start = this.pos;
    const text = this.text;
    this.pos++;
    for (;;) {
      if (this.pos >= text.length) this.fail('unterminated string', start);
      const c = text.charCodeAt(this.pos);
      if (c === 0x22) break;
      if (c < 0x20) this.fail('a control character inside a string must be escaped');
      if (c === 0x5c) {
        const escape = text[this.pos + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.pos + 2, this.pos + 6))) this.fail('invalid \\u escape');
          this.pos += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) this.fail(`invalid escape \\${escape ?? ''}`);
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
    this.pos++;
    return JSON.parse(text.slice(start, this.pos)) as string;
  }

  private parseObject(depth: number): JsonObjectNode {
    const start = this.pos;
    this.pos++;
    const props: JsonProp[] = [];
    const seen = new Set<string>();
    this.skipTrivia();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', start, end: this.pos, props };
    }
    for (;;) {
      this.skipTrivia();
      if (this.text[this.pos] === '}' && props.length > 0) {
        if (!this.options.jsonc) this.fail('trailing comma before } is not allowed in this file (plain JSON)');
        this.pos++;
        break;
      }
      if (this.text[this.pos] !== '"') this.fail(`expected a "quoted" property name, found ${this.describe()}`);
      const keyStart = this.pos;
      const key = this.parseString();
      const keyEnd = this.pos;
      if (seen.has(key)) this.fail(`duplicate key ${JSON.stringify(key)}; a client would use only one of them, remove the other`, keyStart);
      seen.add(key);
      this.skipTrivia();
      if (this.text[this.pos] !== ':') this.fail(`expected ":" after the property name, found ${this.describe()}`);
      this.pos++;
      this.skipTrivia();
      const value = this.parseValue(depth + 1);
      props.push({ key, keyStart, keyEnd, value });
      this.skipTrivia();
      if (this.text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      if (this.text[this.pos] === '}') {
        this.pos++;
        break;
      }
      this.fail(`expected "," or "}" after a property value, found ${this.describe()}`);
    }
    return { kind: 'object', start, end: this.pos, props };
  }

  private parseArray(depth: number): JsonArrayNode {
    const start = this.pos;
    this.pos++;
    const items: JsonNode[] = [];
    this.skipTrivia();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'array', start, end: this.pos, items };
    }
    for (;;) {
      this.skipTrivia();
      if (this.text[this.pos] === ']' && items.length > 0) {
        if (!this.options.jsonc) this.fail('trailing comma before ] is not allowed in this file (plain JSON)');
        this.pos++;
        break;
      }
      items.push(this.parseValue(depth + 1));
      this.skipTrivia();
      if (this.text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      if (this.text[this.pos] === ']') {
        this.pos++;
        break;
      }
      this.fail(`expected "," or "]" after an array item, found ${this.describe()}`);
    }
    return { kind: 'array', start, end: this.pos, items };
  }
}

/** The plain value of a node (for comparisons and reading). */
export function toValue(node: JsonNode): unknown {
  if (node.kind === 'object') return Object.fromEntries(node.props.map((p) => [p.key, toValue(p.value)]));
  if (node.kind === 'array') return node.items.map(toValue);
  return node.value;
}

export function getProp(node: JsonNode | undefined, key: string): JsonProp | undefined {
  if (!node || node.kind !== 'object') return undefined;
  return node.props.find((p) => p.key === key);
}
