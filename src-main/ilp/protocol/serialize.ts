import type { JsonValue } from '../../../src-shared/schemas/json.js';
import { hasControlCharacter } from './limits.js';
import { HEADER, ILP_VERSION, type IlpMessage } from './message.js';

/*
 * Writing one ILP/1.0 message (spec 004 §5). Every header value is one line: a JSON value is
 * written compact, as the HTTP mapping must carry it and as no reader can mistake for a second
 * message. Content-Length is always written, computed from the body as sent, so a caller can never
 * declare a length the body does not have. Lines end in LF, as the RFC writes its messages.
 */

/** The body as sent: compact JSON, or nothing. */
function bodyText(body: JsonValue | null): string {
  return body === null ? '' : JSON.stringify(body);
}

function headerText(value: JsonValue): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function serializeIlpMessage(message: IlpMessage): string {
  const start = message.kind === 'request' ? `${message.method} ${message.path} ILP/${ILP_VERSION}` : `ILP/${ILP_VERSION} ${message.status} ${message.reason}`;
  if (hasControlCharacter(start)) throw new Error('the start line holds a line end or another control character');
  const body = bodyText(message.body);
  const lengthKey = HEADER.contentLength.toLowerCase();
  const lines = [start];
  for (const header of message.headers) {
    if (header.name.toLowerCase() === lengthKey) continue;
    const value = headerText(header.value);
    // A value is one line by construction; a string carrying a line end would start a new field.
    if (hasControlCharacter(value)) throw new Error(`header ${header.name} holds a line end or another control character`);
    lines.push(`${header.name}: ${value}`);
  }
  if (body !== '') {
    if (!message.headers.some((h) => h.name.toLowerCase() === HEADER.contentType.toLowerCase())) lines.push(`${HEADER.contentType}: application/json`);
    lines.push(`${HEADER.contentLength}: ${Buffer.byteLength(body, 'utf8')}`);
  }
  return `${lines.join('\n')}\n\n${body}`;
}
