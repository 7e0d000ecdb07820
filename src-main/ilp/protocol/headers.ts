import type { JsonValue } from '../../../src-shared/schemas/json.js';
import { CONSTITUTIONAL_STATUSES, HEADER, ILP_MEDIA_TYPES, type IlpHeader, type IlpSyntaxError } from './message.js';
import { hasControlCharacter, ILP_LIMITS } from './limits.js';

/*
 * The header section of an ILP message (spec 004 §5, §6). A value that opens a JSON object or
 * array may run over several lines, as the RFC's examples write Constitutional-Header,
 * Reasoning-Trace and Attention-Payload; it ends on the line where the JSON closes. Two rules keep
 * one message from hiding another (docs/conformance.md "ILP wire format"): a JSON value never
 * runs past a blank line or the end of the section, and no other value continues on a second line
 * (HTTP's obsolete line folding is refused, not joined).
 */

const NAME = /^[A-Za-z0-9][A-Za-z0-9-]*$/;
const JSON_HEADERS = new Set([HEADER.constitutional, HEADER.reasoningTrace, HEADER.attentionPayload].map((n) => n.toLowerCase()));

type Read = { ok: true; headers: IlpHeader[] } | { ok: false; error: IlpSyntaxError };

const refuse = (field: string, message: string): { ok: false; error: IlpSyntaxError } => ({ ok: false, error: { status: 400, field, message } });

/**
 * Where the JSON text that starts at `text[0]` (`{` or `[`) closes, or -1 while it is still open
 * at the end of `text`. Counts brackets outside strings; the JSON itself is checked afterwards.
 */
function jsonEnd(text: string, state: { depth: number; inString: boolean; escaped: boolean }, from: number): number {
  for (let i = from; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (state.inString) {
      if (state.escaped) state.escaped = false;
      else if (c === 0x5c) state.escaped = true;
      else if (c === 0x22) state.inString = false;
      continue;
    }
    if (c === 0x22) state.inString = true;
    else if (c === 0x7b || c === 0x5b) state.depth += 1;
    else if (c === 0x7d || c === 0x5d) {
      state.depth -= 1;
      if (state.depth === 0) return i;
    }
  }
  return -1;
}

/** Reads the header lines (the lines after the start line, up to the blank line, without it). */
export function readHeaders(lines: readonly string[]): Read {
  const headers: IlpHeader[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (line.startsWith(' ') || line.startsWith('\t')) return refuse('headers', `line ${i + 2} continues the line before it; only a JSON value may run over several lines`);
    const colon = line.indexOf(':');
    if (colon <= 0) return refuse('headers', `line ${i + 2} is not a header field "Name: value"`);
    const name = line.slice(0, colon);
    if (!NAME.test(name) || name.length > ILP_LIMITS.headerName) return refuse('headers', `line ${i + 2}: "${name.slice(0, 40)}" is not a header name (letters, digits and hyphens, at most ${ILP_LIMITS.headerName})`);
    const key = name.toLowerCase();
    if (seen.has(key)) return refuse(name, `${name} appears twice; a header field may appear once`);
    seen.add(key);
    if (headers.length === ILP_LIMITS.headerCount) return refuse('headers', `more than ${ILP_LIMITS.headerCount} header fields`);
    let raw = line.slice(colon + 1).trim();
    if (raw.startsWith('{') || raw.startsWith('[')) {
      const state = { depth: 0, inString: false, escaped: false };
      let end = jsonEnd(raw, state, 0);
      while (end < 0) {
        const next = lines[i + 1];
        if (next === undefined) return refuse(name, `the JSON value of ${name} is not closed before the end of the headers`);
        i += 1;
        const from = raw.length + 1;
        raw = `${raw}\n${next}`;
        end = jsonEnd(raw, state, from);
      }
      if (raw.slice(end + 1).trim() !== '') return refuse(name, `text follows the JSON value of ${name} on its last line`);
      raw = raw.slice(0, end + 1);
    }
    const value = typedValue(name, raw);
    if (!value.ok) return value;
    headers.push({ name, value: value.value });
  }
  return { ok: true, headers };
}

/** A header's value read into its type (see IlpHeader). */
function typedValue(name: string, raw: string): { ok: true; value: JsonValue } | { ok: false; error: IlpSyntaxError } {
  const key = name.toLowerCase();
  if (JSON_HEADERS.has(key) || raw.startsWith('{') || raw.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      return refuse(name, `${name} is not valid JSON: ${(error as Error).message}`);
    }
    if (JSON_HEADERS.has(key) && (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))) return refuse(name, `${name} must be a JSON object`);
    return { ok: true, value: parsed as JsonValue };
  }
  if (key === HEADER.attentionEnabled.toLowerCase()) {
    if (raw !== 'true' && raw !== 'false') return refuse(name, `${name} must be true or false, not "${raw.slice(0, 40)}"`);
    return { ok: true, value: raw === 'true' };
  }
  if (key === HEADER.contentLength.toLowerCase()) {
    if (!/^[0-9]{1,10}$/.test(raw)) return refuse(name, `${name} must be a number of bytes, not "${raw.slice(0, 40)}"`);
    return { ok: true, value: Number(raw) };
  }
  if (key === HEADER.constitutionalStatus.toLowerCase() && !(CONSTITUTIONAL_STATUSES as readonly string[]).includes(raw)) {
    return refuse(name, `${name} must be one of ${CONSTITUTIONAL_STATUSES.join(', ')}, not "${raw.slice(0, 40)}"`);
  }
  if (key === HEADER.contentType.toLowerCase() && !isIlpMediaType(raw)) {
    return refuse(name, `${name} "${raw.slice(0, 80)}" is not an ILP media type: use ${ILP_MEDIA_TYPES.join(', ')} (with "; version=1.0" where §11.3 gives it)`);
  }
  // Control characters could make a logged or shown value read as something else.
  if (hasControlCharacter(raw)) return refuse(name, `${name} holds a control character`);
  return { ok: true, value: raw };
}

/** Whether `value` names one of the media types ILP bodies are written in (parameters allowed, `version` only 1.0). */
function isIlpMediaType(value: string): boolean {
  const [type, ...params] = value.split(';').map((part) => part.trim());
  if (!(ILP_MEDIA_TYPES as readonly string[]).includes(type!.toLowerCase())) return false;
  return params.every((param) => {
    const [key, val] = param.split('=').map((part) => part.trim());
    if (key?.toLowerCase() === 'version') return val === '1.0' || val === '"1.0"';
    return key?.toLowerCase() === 'charset' && val?.toLowerCase() === 'utf-8';
  });
}
