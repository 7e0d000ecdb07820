import { isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import { locateYamlPath, yamlPosition, type YamlLocation, type YamlPath } from '../yaml/positions.js';

/*
 * A policy's YAML source as the place its problems are reported: every error and warning
 * carries the YAML path, line and column, whether it comes from the schema (validate.ts), the
 * warnings (warnings.ts) or the loader's native checks (RE2, normalisation).
 */

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
export type PolicyWarning = Omit<PolicyError, 'code'>;

/** `a.b`, `a["odd key"]`, `a[0]`. */
export function formatPolicyPath(path: YamlPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const key = String(segment);
      if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) out += `[${JSON.stringify(key)}]`;
      else out += out === '' ? key : `.${key}`;
    }
  }
  return out;
}

/** "a string", "the number 5", "a list"… for "expected X, got Y" messages. */
export function describeNode(node: unknown): string {
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

/** The closest known word, when one is plausibly meant. */
export function suggest(word: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = levenshtein(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(best.length / 4)) ? best : null;
}

export class PolicySource {
  constructor(
    readonly doc: Document,
    readonly lineCounter: LineCounter,
  ) {}

  locate(path: YamlPath): YamlLocation {
    return locateYamlPath(this.doc, path);
  }

  /** Whether the document writes `path` (a default does not count). */
  has(path: YamlPath): boolean {
    return this.locate(path).depth === path.length;
  }

  /**
   * Where a problem at `path` is shown: its value as written (an alias rather than its anchor),
   * or its key; for a key that is missing, the mapping that lacks it.
   */
  position(path: YamlPath, at: 'value' | 'key' = 'value'): { line: number; column: number } {
    const location = this.locate(path);
    return this.at(location.depth === path.length && at === 'key' ? (location.key ?? location.node) : (location.node ?? location.key));
  }

  /** The line and column where a node starts. */
  at(node: unknown): { line: number; column: number } {
    return yamlPosition(this.lineCounter, node);
  }

  error(path: YamlPath, message: string, at: 'value' | 'key' = 'value'): PolicyError {
    return { path: formatPolicyPath(path), ...this.position(path, at), message };
  }

  warning(path: YamlPath, message: string): PolicyWarning {
    return { path: formatPolicyPath(path), ...this.position(path), message };
  }
}

/** Errors or warnings in reading order; stable, so findings at one place keep their order. */
export function byPosition<T extends { line: number; column: number }>(findings: readonly T[]): T[] {
  return [...findings].sort((a, b) => a.line - b.line || a.column - b.column);
}
