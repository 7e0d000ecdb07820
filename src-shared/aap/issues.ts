import type { z } from 'zod';

/*
 * Validation problems named by their JSON path (`autonomy_envelope.escalation_triggers[1].condition`)
 * and what was expected there, so a person can find and fix them in the file or the card editor.
 */

export interface ValidationIssue {
  /** JSON path from the document's root; empty for the document itself. */
  path: string;
  message: string;
  /** What the path should hold, when that can be said. */
  expected?: string;
}

export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** The value found at `segments` in `root`, or undefined when the path does not exist. */
function valueAt(root: unknown, segments: readonly PathSegment[]): unknown {
  let node = root;
  for (const segment of segments) {
    if (node === null || typeof node !== 'object') return undefined;
    if (!Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function describeExpected(issue: z.core.$ZodIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return article(issue.expected);
    case 'invalid_value':
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'datetime' ? 'an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z' : `a string in ${issue.format} format`;
    case 'too_small':
      return issue.origin === 'array' ? `at least ${String(issue.minimum)} item${Number(issue.minimum) === 1 ? '' : 's'}` : `a value of at least ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'array' ? `at most ${String(issue.maximum)} items` : `a value of at most ${String(issue.maximum)}`;
    case 'invalid_union':
      return 'one of the documented shapes';
    default:
      return undefined;
  }
}

/** zod's issues, re-worded with the JSON path, what is there and what was expected. */
export function issuesFromZod(error: z.ZodError, input: unknown, prefix: readonly PathSegment[] = []): ValidationIssue[] {
  return error.issues.map((issue) => {
    const segments = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
    const path = formatPath([...prefix, ...segments]);
    const expected = describeExpected(issue);
    const found = valueAt(input, segments);
    let message: string;
    if (found === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) message = `missing; expected ${expected ?? 'a value'}`;
    else if (issue.code === 'invalid_type') message = `expected ${expected}, got ${jsonTypeOf(found)}`;
    else if (issue.code === 'invalid_value') message = `expected ${expected}, got ${JSON.stringify(found)}`;
    else if (expected) message = `expected ${expected}${found !== undefined && typeof found !== 'object' ? `, got ${JSON.stringify(found)}` : ''}`;
    else message = issue.message;
    return expected === undefined ? { path, message } : { path, message, expected };
  });
}

/** One line per issue: `path: message (expected …)`, the expectation only when the message lacks it. */
export function formatIssue(issue: ValidationIssue): string {
  const expected = issue.expected && !issue.message.includes(issue.expected) ? ` (expected ${issue.expected})` : '';
  return `${issue.path ? `${issue.path}: ` : ''}${issue.message}${expected}`;
}
