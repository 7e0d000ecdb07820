import type { CallResult } from '../../src-shared/contract/index.js';

/*
 * The Constitutional-Header of a stored composition's query (spec 004 §6.1), as the replay form
 * edits it: read from the raw request text of the query's own hop, checked as the person types.
 * The runtime checks it again (`ilp.replay`) and the enforcer judges its fields when it is sent.
 */

type Hop = CallResult<'ilp.get'>['hop_list'][number];

const HEADER_NAME = 'constitutional-header';
/** A header line: a field name, a colon (spec 004 §5, HTTP-style). */
const FIELD_LINE = /^[A-Za-z][A-Za-z0-9-]*:/;

/** The hop the query came in on: the one without a parent (the meta-agent's), else the first. */
export function queryHop(hops: readonly Hop[]): Hop | null {
  return hops.find((h) => h.parent === null) ?? hops[0] ?? null;
}

/**
 * The header's JSON text in `requestText`, two-space indented for editing, or null when the
 * request has none. A JSON value may run over several lines (the codec reads multi-line values,
 * docs/ilp.md "The wire codec"): following lines are taken until the value parses or another field
 * or the blank line before the body begins.
 */
export function constitutionalHeaderOf(requestText: string): string | null {
  const lines = requestText.split(/\r?\n/);
  const end = lines.indexOf('') === -1 ? lines.length : lines.indexOf('');
  for (let i = 1; i < end; i += 1) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== HEADER_NAME) continue;
    let text = line.slice(colon + 1).trim();
    for (let j = i + 1; ; j += 1) {
      const parsed = parseJson(text);
      if (parsed.ok) return JSON.stringify(parsed.value, null, 2);
      if (j >= end || FIELD_LINE.test(lines[j]!)) return text;
      text = `${text}\n${lines[j]!}`;
    }
  }
  return null;
}

/** What the replay form starts from: the query hop's header, or an empty object for the person to fill. */
export function replayDraftOf(hops: readonly Hop[]): string {
  const hop = queryHop(hops);
  return (hop && constitutionalHeaderOf(hop.request_text)) ?? '{}';
}

/** Why the draft cannot be sent as it is, or null when it is a JSON object. */
export function headerDraftProblem(text: string): string | null {
  if (text.trim() === '') return 'Type the Constitutional-Header as a JSON object, e.g. {"max_budget_usd": 0.05}.';
  const parsed = parseJson(text);
  if (!parsed.ok) return `Not JSON yet: ${parsed.message}`;
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `The Constitutional-Header is a JSON object of its fields, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}.`;
  }
  return null;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
