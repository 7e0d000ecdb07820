import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

/*
 * Client configurations read with `jsonc-parser` (VS Code's own reader), keeping where every
 * value sits in the text so that an edit splices only the values that change: indentation, key
 * order, comments, line endings and everything else stay byte for byte.
 *
 * The library is lenient where a client is not, so one pass over its tokens first applies our
 * rules. Strict mode is RFC 8259 JSON (plus a leading UTF-8 byte-order mark, skipped and kept);
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

// jsonc-parser's SyntaxKind and ScanError are const enums, which isolatedModules cannot import.
const T = { openBrace: 1, closeBrace: 2, openBracket: 3, closeBracket: 4, comma: 5, colon: 6, null: 7, true: 8, false: 9, string: 10, number: 11, lineComment: 12, blockComment: 13, eof: 17 } as const;
const SCAN_ERRORS: Record<number, string> = {
  1: 'unterminated /* comment',
  2: 'unterminated string',
  3: 'a number must have digits after "." and "e"',
  4: 'invalid \\u escape',
  5: 'invalid escape',
  6: 'a control character inside a string must be escaped',
};

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

function fail(text: string, message: string, at: number): never {
  const { line, column } = lineColumn(text, at);
  throw new JsonSyntaxError(message, at, line, column);
}

/**
 * Walks the tokens as a small state machine: the grammar jsonc-parser accepts, narrowed to what
 * the mode allows, with a message that says what was expected. Iterative, so nesting is bounded
 * here before the library's recursive parse ever sees it.
 */
function checkTokens(text: string, jsonc: boolean): void {
  const scanner = createScanner(text, false);
  const stack: ('object' | 'array')[] = [];
  let expect: 'value' | 'key' | 'colon' | 'after' = 'value';
  let previous = 0;
  let any = false;
  for (;;) {
    const kind = scanner.scan() as number;
    const at = scanner.getTokenOffset();
    const error = scanner.getTokenError() as number;
    if (kind === T.lineComment || kind === T.blockComment) {
      if (!jsonc) fail(text, 'comments are not allowed in this file (plain JSON)', at);
      if (error !== 0) fail(text, SCAN_ERRORS[error]!, at);
      continue;
    }
    if (kind > T.blockComment && kind !== T.eof && kind !== 16) continue;
    if (error !== 0) fail(text, SCAN_ERRORS[error] ?? 'invalid token', at);
    const found = kind === T.eof ? 'end of file' : `character ${JSON.stringify(text[at])}`;
    const top = stack.at(-1);
    if (kind === T.eof && !any) fail(text, 'the file is empty; expected a JSON object', at);
    const closes = (kind === T.closeBrace && top === 'object' && expect === 'key') || (kind === T.closeBracket && top === 'array' && expect === 'value');
    if (closes && previous !== T.openBrace && previous !== T.openBracket) {
      if (!jsonc) fail(text, `trailing comma before ${text[at]} is not allowed in this file (plain JSON)`, at);
    }
    if (closes || (expect === 'after' && kind === (top === 'object' ? T.closeBrace : T.closeBracket) && top !== undefined)) {
      stack.pop();
      expect = 'after';
    } else if (expect === 'value' && (kind === T.openBrace || kind === T.openBracket)) {
      stack.push(kind === T.openBrace ? 'object' : 'array');
      if (stack.length > MAX_DEPTH) fail(text, `nested deeper than ${MAX_DEPTH} levels`, at);
      expect = kind === T.openBrace ? 'key' : 'value';
    } else if (expect === 'value' && kind >= T.null && kind <= T.number) {
      expect = 'after';
    } else if (expect === 'key' && kind === T.string) {
      expect = 'colon';
    } else if (expect === 'colon' && kind === T.colon) {
      expect = 'value';
    } else if (expect === 'after' && kind === T.comma && top !== undefined) {
      expect = top === 'object' ? 'key' : 'value';
    } else if (expect === 'after' && kind === T.eof && top === undefined) {
      return;
    } else if (expect === 'key') {
      fail(text, `expected a "quoted" property name, found ${found}`, at);
    } else if (expect === 'colon') {
      fail(text, `expected ":" after the property name, found ${found}`, at);
    } else if (expect === 'value') {
      fail(text, `expected a JSON value, found ${found}`, at);
    } else if (top === undefined) {
      fail(text, `unexpected ${found} after the end of the JSON value`, at);
    } else {
      fail(text, top === 'object' ? `expected "," or "}" after a property value, found ${found}` : `expected "," or "]" after an array item, found ${found}`, at);
    }
    any = true;
    previous = kind;
  }
}

function convert(text: string, node: Node): JsonNode {
  const start = node.offset;
  const end = node.offset + node.length;
  switch (node.type) {
    case 'object': {
      const props: JsonProp[] = [];
      const seen = new Set<string>();
      for (const prop of node.children ?? []) {
        const [key, value] = prop.children ?? [];
        if (!key || !value) fail(text, 'a property without a value', prop.offset);
        const name = key.value as string;
        if (seen.has(name)) fail(text, `duplicate key ${JSON.stringify(name)}; a client would use only one of them, remove the other`, key.offset);
        seen.add(name);
        props.push({ key: name, keyStart: key.offset, keyEnd: key.offset + key.length, value: convert(text, value) });
      }
      return { kind: 'object', start, end, props };
    }
    case 'array':
      return { kind: 'array', start, end, items: (node.children ?? []).map((item) => convert(text, item)) };
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return { kind: node.type, start, end, value: node.value as JsonScalarNode['value'] };
    default:
      return fail(text, `unexpected ${node.type}`, start);
  }
}

export function parseJsonText(text: string, options: ParseOptions): JsonNode {
  // The mark stays in the text (edits keep it); a space of the same length keeps every offset.
  const source = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  checkTokens(source, options.jsonc);
  const errors: ParseError[] = [];
  const root = parseTree(source, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  // The token check accepts only what the library parses cleanly; anything else fails closed.
  if (errors.length > 0 || !root) fail(source, `cannot parse (${errors[0] ? printParseErrorCode(errors[0].error) : 'no value'})`, errors[0]?.offset ?? 0);
  return convert(source, root);
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
