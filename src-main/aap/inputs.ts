import { formatPath, type PathSegment, type ValidationIssue } from '../../src-shared/aap/issues.js';

/*
 * Where a card or trace sits in a JSON document people actually have: the bare object, an A2A
 * Agent Card carrying it as `alignment` (§3.3), or a conformance vector holding `card`, `trace`
 * or `traces`. Paths in errors are given from the document's root, so they point into the file.
 */

export interface Located {
  value: unknown;
  /** Path from the document's root to `value`. */
  at: PathSegment[];
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

export function locateCard(document: unknown): Located {
  if (isObject(document) && !('card_id' in document)) {
    if (isObject(document.alignment)) return { value: document.alignment, at: ['alignment'] };
    if (isObject(document.card)) return { value: document.card, at: ['card'] };
  }
  return { value: document, at: [] };
}

export function locateTrace(document: unknown): Located {
  if (isObject(document) && !('trace_id' in document) && isObject(document.trace)) return { value: document.trace, at: ['trace'] };
  return { value: document, at: [] };
}

/** Every trace a document holds: an array, a vector's `traces`, or one trace. */
export function locateTraces(document: unknown): Located[] {
  if (Array.isArray(document)) return document.map((value, index) => ({ value, at: [index] }));
  if (isObject(document) && !('trace_id' in document) && Array.isArray(document.traces)) return document.traces.map((value, index) => ({ value, at: ['traces', index] }));
  return [locateTrace(document)];
}

/** Issues re-rooted at the document, e.g. `condition` → `alignment.autonomy_envelope…condition`. */
export function reroot(issues: readonly ValidationIssue[], at: readonly PathSegment[]): ValidationIssue[] {
  if (at.length === 0) return [...issues];
  const prefix = formatPath(at);
  return issues.map((issue) => ({ ...issue, path: issue.path === '' ? prefix : issue.path.startsWith('[') ? `${prefix}${issue.path}` : `${prefix}.${issue.path}` }));
}
