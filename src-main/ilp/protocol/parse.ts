import type { JsonValue } from '../../../src-shared/schemas/json.js';
import { readHeaders } from './headers.js';
import { hasControlCharacter, ILP_LIMITS } from './limits.js';
import { HEADER, ILP_METHODS, ILP_VERSION, headerOf, isIlpStatus, type IlpHeader, type IlpMethod, type IlpParseResult, type IlpSyntaxError } from './message.js';

/*
 * Reading one whole ILP/1.0 message (spec 004 §5): a file, an HTTP body, or a frame the socket
 * framing cut out. Lines end in LF or CRLF. The body's length is the declared Content-Length
 * when there is one, and it must be exact (the normative text over the examples of §5.3 and
 * §5.4, whose declared lengths are wrong; docs/conformance.md "ILP wire format"): bytes beyond it
 * would be a second message riding in the first, so only the one line end a file ends with may
 * follow. Without Content-Length the body is the rest of the input, less that line end.
 */

const REQUEST_LINE = /^([A-Z]+) (\S+) ILP\/(\d+\.\d+)$/;
const STATUS_LINE = /^ILP\/(\d+\.\d+) (\d{3}) (.*)$/;
/** A request target: a path from `/`, optionally a query; no spaces, no control characters. */
const TARGET = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*(\?[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$/;

const refuse = (field: string, message: string): { ok: false; error: IlpSyntaxError } => ({ ok: false, error: { status: 400, field, message } });

/** Where the header section ends: the first blank line, or the end of the input. */
function splitSections(text: string): { head: string; body: string | null } {
  const blank = /\r?\n\r?\n/.exec(text);
  if (blank === null) return { head: text.replace(/\r?\n$/, ''), body: null };
  return { head: text.slice(0, blank.index), body: text.slice(blank.index + blank[0].length) };
}

/** The most a whole message may be: its header section, its body and the blank line between. */
const MESSAGE_MAX = ILP_LIMITS.headerSection + ILP_LIMITS.body + 4;

export function parseIlpMessage(input: string | Uint8Array): IlpParseResult {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
  if (size > MESSAGE_MAX) return refuse('body', `the message is ${size} bytes; one message holds at most ${ILP_LIMITS.headerSection} bytes of headers and ${ILP_LIMITS.body} of body`);
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      return refuse('start-line', 'the message is not UTF-8 text');
    }
  }
  const { head, body } = splitSections(text);
  if (Buffer.byteLength(head, 'utf8') > ILP_LIMITS.headerSection) return refuse('headers', `the start line and headers exceed ${ILP_LIMITS.headerSection} bytes`);
  if (/\r(?!\n)/.test(head)) return refuse('headers', 'a carriage return stands alone; lines end in LF or CRLF');
  const lines = head.split(/\r?\n/);
  const start = lines[0]!;
  const headers = readHeaders(lines.slice(1));
  if (!headers.ok) return headers;
  const content = readBody(body, headers.headers);
  if (!content.ok) return content;
  return startLine(start, headers.headers, content.body);
}

function startLine(line: string, headers: IlpHeader[], body: JsonValue | null): IlpParseResult {
  if (line.startsWith('ILP/')) {
    const match = STATUS_LINE.exec(line);
    if (!match || hasControlCharacter(line)) return refuse('start-line', `"${line.slice(0, 80)}" is not a status line "ILP/1.0 200 OK"`);
    if (match[1] !== ILP_VERSION) return refuse('version', `ILP/${match[1]} is not spoken here; use ILP/${ILP_VERSION}`);
    const status = Number(match[2]);
    if (!isIlpStatus(status)) return refuse('status', `${status} is not an ILP status code (§3.3: 200, 207, 400, 403, 409, 429, 451, 500, 503)`);
    return { ok: true, message: { kind: 'response', version: ILP_VERSION, status, reason: match[3]!, headers, body } };
  }
  const match = REQUEST_LINE.exec(line);
  if (!match) return refuse('start-line', `"${line.slice(0, 80)}" is neither a request line "THINK /insight ILP/1.0" nor a status line "ILP/1.0 200 OK"`);
  const [, method, path, version] = match;
  if (!(ILP_METHODS as readonly string[]).includes(method!)) return refuse('method', `${method} is not an ILP method; use one of ${ILP_METHODS.join(', ')}`);
  if (version !== ILP_VERSION) return refuse('version', `ILP/${version} is not spoken here; use ILP/${ILP_VERSION}`);
  if (path!.length > ILP_LIMITS.path || !TARGET.test(path!)) return refuse('path', `"${path!.slice(0, 80)}" is not a request target: a path from "/" of URL characters, at most ${ILP_LIMITS.path}`);
  return { ok: true, message: { kind: 'request', version: ILP_VERSION, method: method as IlpMethod, path: path!, headers, body } };
}

function readBody(body: string | null, headers: IlpHeader[]): { ok: true; body: JsonValue | null } | { ok: false; error: IlpSyntaxError } {
  const declared = headerOf({ headers }, HEADER.contentLength)?.value as number | undefined;
  let text = body ?? '';
  const bytes = Buffer.byteLength(text, 'utf8');
  if (declared !== undefined) {
    if (declared > ILP_LIMITS.body) return refuse(HEADER.contentLength, `Content-Length ${declared} exceeds the ${ILP_LIMITS.body} bytes a body may hold`);
    const trailing = bytes - declared;
    const lineEnd = text.endsWith('\r\n') ? 2 : text.endsWith('\n') ? 1 : 0;
    if (trailing < 0) return refuse(HEADER.contentLength, `Content-Length declares ${declared} bytes but the body has ${bytes - lineEnd}; declare the body's exact length in bytes`);
    if (trailing > 0 && trailing !== lineEnd) return refuse(HEADER.contentLength, `${trailing} bytes follow the ${declared} Content-Length declares; one message may not carry another`);
    text = Buffer.from(text, 'utf8').subarray(0, declared).toString('utf8');
  } else {
    if (bytes > ILP_LIMITS.body) return refuse('body', `the body exceeds the ${ILP_LIMITS.body} bytes it may hold`);
    text = text.replace(/\r?\n$/, '');
  }
  if (text.trim() === '') return { ok: true, body: null };
  if (headerOf({ headers }, HEADER.contentType) === undefined) return refuse(HEADER.contentType, 'a message with a body must say its Content-Type (application/json or an ILP media type of §11.3)');
  try {
    return { ok: true, body: JSON.parse(text) as JsonValue };
  } catch (error) {
    return refuse('body', `the body is not valid JSON: ${(error as Error).message}`);
  }
}
