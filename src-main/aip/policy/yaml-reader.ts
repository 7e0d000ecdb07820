import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';

/** One reason a policy did not load, located in its YAML source. */
export interface PolicyError {
  /** YAML path such as `spec.tool_rules[0].allow_args.url`; "" for the whole document. */
  path: string;
  /** 1-based; 0 when the problem is not inside the text (e.g. the file cannot be read). */
  line: number;
  /** 1-based; 0 together with line 0. */
  column: number;
  /** What is wrong and what was expected. */
  message: string;
  /** A JSON-RPC error code when the spec assigns one: -32010 for signature failures. */
  code?: number;
}

/** A SHOULD-level finding: the policy loads, but its author ought to know. */
export interface PolicyWarning {
  path: string;
  line: number;
  column: number;
  message: string;
}

export type ApiVersionName = 'aip.io/v1alpha1' | 'aip.io/v1alpha2';

/** A key in a mapping of the schema. */
export interface KeySpec {
  /** Only valid in aip.io/v1alpha2 documents. */
  v2?: boolean;
}

export interface Entry {
  key: string;
  keyNode: Scalar;
  /** The value node, aliases resolved; null for an absent value node. */
  value: unknown;
  /** The node to point at for this value (the alias itself when the value came through one). */
  at: unknown;
  path: string;
}

/** A located place in the source: a node with a range, or an explicit offset. */
type Place = unknown;

export const MAX_DEPTH = 32;

/** `a.b`, `a["odd key"]`. */
export function childPath(path: string, key: string): string {
  const segment = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  if (path === '') return segment;
  return segment.startsWith('[') ? `${path}${segment}` : `${path}.${segment}`;
}

export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length]!;
}

/** The closest known key, when one is plausibly meant. */
export function suggest(key: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = levenshtein(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(best.length / 4)) ? best : null;
}

/** "a string", "number 5", "a list"… for "expected X, got Y" messages. */
export function describe(node: unknown): string {
  if (node === null || node === undefined) return 'nothing (an empty value)';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const value = node.value;
    if (value === null) return 'null (an empty value)';
    if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    if (typeof value === 'number') return `the number ${String(value)}`;
    if (typeof value === 'boolean') return `the boolean ${String(value)}`;
    return `a value of type ${typeof value}`;
  }
  return 'an unsupported YAML node';
}

/**
 * Reads the schema out of YAML nodes, collecting every error and warning with its YAML path,
 * line and column. It never throws for bad input and never stops at the first problem.
 */
export class PolicyReader {
  readonly errors: PolicyError[] = [];
  readonly warnings: PolicyWarning[] = [];
  version: ApiVersionName = 'aip.io/v1alpha2';

  constructor(
    private readonly doc: Document.Parsed,
    private readonly lineCounter: LineCounter,
  ) {}

  position(place: Place): { line: number; column: number } {
    let offset = 0;
    if (typeof place === 'number') offset = place;
    else if (place && typeof place === 'object' && 'range' in place && Array.isArray((place as { range: unknown }).range)) {
      offset = ((place as { range: number[] }).range[0] ?? 0) as number;
    }
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }

  error(path: string, place: Place, message: string, code?: number): void {
    const error: PolicyError = { path, ...this.position(place), message };
    if (code !== undefined) error.code = code;
    this.errors.push(error);
  }

  warn(path: string, place: Place, message: string): void {
    this.warnings.push({ path, ...this.position(place), message });
  }

  /** Follows aliases to the node they name. */
  resolve(node: unknown): unknown {
    let current = node;
    for (let hops = 0; isAlias(current); hops++) {
      if (hops > 100) return null;
      current = current.resolve(this.doc) ?? null;
    }
    return current;
  }

  /**
   * A mapping with a closed set of keys: every other key is an error (with a suggestion for a
   * near miss), and so is a v1alpha2-only key in a v1alpha1 document.
   */
  map(node: unknown, path: string, at: Place, keys: Readonly<Record<string, KeySpec>>, special: Readonly<Record<string, string>> = {}): Map<string, Entry> | null {
    const resolved = this.resolve(node);
    if (!isMap(resolved)) {
      this.error(path, at ?? node, `expected a mapping, got ${describe(resolved)}`);
      return null;
    }
    const entries = new Map<string, Entry>();
    const known = Object.keys(keys);
    for (const pair of (resolved as YAMLMap<unknown, unknown>).items) {
      const keyNode = this.resolve(pair.key);
      const keyAt = pair.key ?? resolved;
      if (!isScalar(keyNode) || typeof keyNode.value !== 'string') {
        this.error(path, keyAt, `expected a string key, got ${describe(keyNode)}${isScalar(keyNode) && keyNode.value !== null ? ' (quote it)' : ''}`);
        continue;
      }
      const key = keyNode.value;
      const keyPath = childPath(path, key);
      if (!Object.hasOwn(keys, key)) {
        const hint = special[key];
        const close = suggest(key, known);
        const where = path === '' ? 'at the top level' : `in ${path}`;
        this.error(
          keyPath,
          keyAt,
          hint ?? `unknown key "${key}" ${where}${close ? ` (did you mean "${close}"?)` : ''}; expected one of: ${known.join(', ')}`,
        );
        continue;
      }
      if (keys[key]!.v2 && this.version !== 'aip.io/v1alpha2') {
        this.error(keyPath, keyAt, `"${key}" is an aip.io/v1alpha2 field, but this document declares apiVersion ${this.version}; change apiVersion to aip.io/v1alpha2 to use it`);
        continue;
      }
      entries.set(key, { key, keyNode: keyNode as Scalar, value: this.resolve(pair.value), at: pair.value ?? keyNode, path: keyPath });
    }
    return entries;
  }

  /** The entry of a required key, or an error at the mapping. */
  required(entries: Map<string, Entry>, key: string, path: string, at: Place, what: string): Entry | undefined {
    const entry = entries.get(key);
    if (!entry) this.error(childPath(path, key), at, `required key "${key}" is missing; expected ${what}`);
    return entry;
  }

  string(entry: Pick<Entry, 'value' | 'at' | 'path'>, options: { nonEmpty?: boolean; maxLength?: number; what?: string } = {}): string | undefined {
    const what = options.what ?? 'a string';
    const node = entry.value;
    if (!isScalar(node) || typeof node.value !== 'string') {
      const quoteHint = isScalar(node) && (typeof node.value === 'number' || typeof node.value === 'boolean') ? ` (write it in quotes: "${String(node.source ?? node.value)}")` : '';
      this.error(entry.path, entry.at, `expected ${what}, got ${describe(node)}${quoteHint}`);
      return undefined;
    }
    const value = node.value;
    if (options.nonEmpty && value.trim() === '') {
      this.error(entry.path, entry.at, `expected ${what}, got an empty string`);
      return undefined;
    }
    if (options.maxLength !== undefined && value.length > options.maxLength) {
      this.error(entry.path, entry.at, `expected ${what} of at most ${options.maxLength} characters, got ${value.length}`);
      return undefined;
    }
    return value;
  }

  boolean(entry: Pick<Entry, 'value' | 'at' | 'path'>): boolean | undefined {
    const node = entry.value;
    if (!isScalar(node) || typeof node.value !== 'boolean') {
      const hint = isScalar(node) && typeof node.value === 'string' && /^(yes|no|on|off|y|n|true|false)$/i.test(node.value) ? ' (YAML 1.2: write true or false, unquoted)' : '';
      this.error(entry.path, entry.at, `expected true or false, got ${describe(node)}${hint}`);
      return undefined;
    }
    return node.value;
  }

  integer(entry: Pick<Entry, 'value' | 'at' | 'path'>, min: number, max: number): number | undefined {
    const node = entry.value;
    if (!isScalar(node) || typeof node.value !== 'number' || !Number.isSafeInteger(node.value) || node.value < min || node.value > max) {
      this.error(entry.path, entry.at, `expected a whole number from ${min} to ${max}, got ${describe(node)}`);
      return undefined;
    }
    return node.value;
  }

  oneOf<T extends string>(entry: Pick<Entry, 'value' | 'at' | 'path'>, allowed: readonly T[]): T | undefined {
    const node = entry.value;
    const list = allowed.map((v) => `"${v}"`).join(', ');
    if (!isScalar(node) || typeof node.value !== 'string') {
      this.error(entry.path, entry.at, `expected one of ${list}, got ${describe(node)}`);
      return undefined;
    }
    if (!(allowed as readonly string[]).includes(node.value)) {
      const close = suggest(node.value, allowed);
      this.error(entry.path, entry.at, `expected one of ${list}, got "${node.value}"${close ? ` (did you mean "${close}"?)` : ''}`);
      return undefined;
    }
    return node.value as T;
  }

  /** The items of a list, each with its path and place. */
  list(entry: Pick<Entry, 'value' | 'at' | 'path'>, what: string): Array<{ value: unknown; at: unknown; path: string }> | undefined {
    const node = entry.value;
    if (!isSeq(node)) {
      this.error(entry.path, entry.at, `expected a list of ${what}${isScalar(node) && node.value === null ? ' (write [] for an empty list)' : ''}, got ${describe(node)}`);
      return undefined;
    }
    return (node as YAMLSeq<unknown>).items.map((item, index) => ({ value: this.resolve(item), at: item ?? node, path: indexPath(entry.path, index) }));
  }

  /** A list of strings; bad items are reported and left out. */
  stringList(entry: Pick<Entry, 'value' | 'at' | 'path'>, what: string, itemWhat: string): Array<{ value: string; at: unknown; path: string }> | undefined {
    const items = this.list(entry, what);
    if (!items) return undefined;
    const out: Array<{ value: string; at: unknown; path: string }> = [];
    for (const item of items) {
      const value = this.string(item, { nonEmpty: true, what: itemWhat });
      if (value !== undefined) out.push({ value, at: item.at, path: item.path });
    }
    return out;
  }
}
