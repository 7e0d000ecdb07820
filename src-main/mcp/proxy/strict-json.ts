/*
 * A strict JSON parser for lines from an MCP client. JSON.parse keeps the last of two equal
 * keys, and other parsers keep the first: a message like {"name":"read","name":"delete"} can
 * mean one thing to the policy and another to the server. This parser finds duplicate keys
 * (after unescaping, so "m\u0065thod" equals "method") and keys that differ only in case at
 * the same level, which a case-insensitive server could fold together. It does not throw for
 * those: it reports them, so the caller can still answer with the request's id.
 */

export type StrictParse =
  | { ok: true; value: unknown; problems: string[]; topLevelKeys: Set<string> | null; ambiguousTopLevel: Set<string> }
  | { ok: false; error: string };

export interface StrictOptions {
  /** Also report keys equal but for case at the same level (client input); default true. */
  caseVariants?: boolean;
  /** Nesting deeper than this is refused (stack safety); default 512. */
  maxDepth?: number;
}

/** Sticky, shared: one RegExp for every number instead of a new one per call. */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/**
 * A run of string characters that need no attention (U+0020 and above, except quote and backslash),
 * skipped natively: a 100 KB file content was a JavaScript loop of 100,000 steps per call.
 */
const PLAIN_RUN = /[ !#-[\]-\uffff]*/y;

class Parser {
  private i = 0;
  readonly problems: string[] = [];
  readonly ambiguousTopLevel = new Set<string>();
  topLevelKeys: Set<string> | null = null;
  /** Keys and indexes from the root to the value being parsed; joined only when a problem is reported. */
  private readonly path: (string | number)[] = [];

  constructor(
    private readonly s: string,
    private readonly caseVariants: boolean,
    private readonly maxDepth: number,
  ) {}

  fail(message: string): never {
    throw new SyntaxError(`${message} at position ${this.i}`);
  }

  ws(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i += 1;
      else return;
    }
  }

  parseDocument(): unknown {
    this.ws();
    const value = this.value(0);
    this.ws();
    if (this.i !== this.s.length) this.fail('unexpected data after the JSON value');
    return value;
  }

  value(depth: number): unknown {
    const c = this.s[this.i];
    if (c === '{') return this.object(depth + 1);
    if (c === '[') return this.array(depth + 1);
    if (c === '"') return this.string();
    if (c === 't') return this.literal('true', true);
    if (c === 'f') return this.literal('false', false);
    if (c === 'n') return this.literal('null', null);
    return this.number();
  }

  literal<T>(word: string, value: T): T {
    if (!this.s.startsWith(word, this.i)) this.fail('invalid literal');
    this.i += word.length;
    return value;
  }

  number(): number {
    const match = NUMBER;
    match.lastIndex = this.i;
    const m = match.exec(this.s);
    if (!m) this.fail('unexpected character');
    this.i += m[0].length;
    return Number(m[0]);
  }

  string(): string {
    const s = this.s;
    const start = this.i + 1;
    let j = start;
    let escaped = false;
    let plain = 0;
    for (;;) {
      const c = s.charCodeAt(j);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x22) break;
      if (c < 0x20) this.fail('control character in string');
      if (c === 0x5c) {
        escaped = true;
        j += 2;
        continue;
      }
      j += 1;
      // Keys and short values stay in this loop; past a few characters the rest of the run is skipped natively.
      if (++plain === 16) {
        plain = 0;
        PLAIN_RUN.lastIndex = j;
        PLAIN_RUN.test(s);
        j = PLAIN_RUN.lastIndex;
      }
    }
    this.i = j + 1;
    if (!escaped) return s.slice(start, j);
    // Escapes are rare in keys and short values; JSON.parse decodes exactly what JSON allows.
    try {
      return JSON.parse(s.slice(start - 1, j + 1)) as string;
    } catch {
      return this.fail('invalid escape in string');
    }
  }

  where(): string {
    return this.path.length === 0 ? '/' : `/${this.path.join('/')}`;
  }

  object(depth: number): Record<string, unknown> {
    if (depth > this.maxDepth) this.fail('nesting too deep');
    this.i += 1;
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    const folded = this.caseVariants ? new Map<string, string>() : null;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i += 1;
      if (depth === 1) this.topLevelKeys = seen;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('expected a string key');
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail('expected ":"');
      this.i += 1;
      this.ws();
      this.path.push(key);
      const value = this.value(depth);
      this.path.pop();
      if (seen.has(key)) {
        this.problems.push(`duplicate key "${key}" at ${this.where()}`);
        if (depth === 1) this.ambiguousTopLevel.add(key);
      } else {
        seen.add(key);
        const lower = folded ? key.toLowerCase() : '';
        const other = folded?.get(lower);
        if (other !== undefined) {
          this.problems.push(`keys "${other}" and "${key}" differ only in case at ${this.where()}`);
          if (depth === 1) {
            this.ambiguousTopLevel.add(other);
            this.ambiguousTopLevel.add(key);
          }
        } else folded?.set(lower, key);
        // "__proto__" must become an own property, as JSON.parse makes it, not the prototype.
        if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
        else out[key] = value;
      }
      this.ws();
      const c = this.s[this.i];
      this.i += 1;
      if (c === ',') continue;
      if (c === '}') break;
      this.i -= 1;
      this.fail('expected "," or "}"');
    }
    if (depth === 1) this.topLevelKeys = seen;
    return out;
  }

  array(depth: number): unknown[] {
    if (depth > this.maxDepth) this.fail('nesting too deep');
    this.i += 1;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i += 1;
      return out;
    }
    for (;;) {
      this.ws();
      this.path.push(out.length);
      out.push(this.value(depth));
      this.path.pop();
      this.ws();
      const c = this.s[this.i];
      this.i += 1;
      if (c === ',') continue;
      if (c === ']') return out;
      this.i -= 1;
      this.fail('expected "," or "]"');
    }
  }
}

/** Parses one JSON text; never throws. */
export function parseStrictJson(text: string, options: StrictOptions = {}): StrictParse {
  const parser = new Parser(text, options.caseVariants ?? true, options.maxDepth ?? 512);
  try {
    const value = parser.parseDocument();
    return { ok: true, value, problems: parser.problems, topLevelKeys: parser.topLevelKeys, ambiguousTopLevel: parser.ambiguousTopLevel };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
