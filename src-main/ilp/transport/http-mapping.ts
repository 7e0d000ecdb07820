import { HEADER, ILP_METHODS, isIlpStatus, reasonOf, type IlpMessage, type IlpParseResult } from '../protocol/message.js';
import { parseIlpMessage } from '../protocol/parse.js';
import { serializeIlpMessage } from '../protocol/serialize.js';

/*
 * ILP over HTTP (docs/ilp.md "Transports"). HTTP servers accept only HTTP's own methods, so the ILP
 * method travels in `ILP-Method` on a POST; the request target is `/ilp/AGENT-ID/PATH`; the ILP
 * header fields are HTTP header fields whose JSON values are written on one line; the HTTP status
 * is the ILP status. Each side rebuilds the ILP message as text and reads it with the same codec as
 * the socket, so the two transports accept exactly the same messages.
 */

export const HTTP_PREFIX = '/ilp/';
const METHOD_HEADER = 'ILP-Method';

/** The ILP header fields carried across HTTP; everything else is HTTP's own (Host, Authorization…). */
const CARRIED_NAMES = [HEADER.constitutional, HEADER.attentionEnabled, HEADER.reasoningTrace, HEADER.attentionPayload, HEADER.constitutionalStatus, HEADER.contentType, 'Query-ID', 'ILP-Composition'];
const CARRIED = new Map(CARRIED_NAMES.map((name) => [name.toLowerCase(), name]));

type HttpHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

function carried(headers: HttpHeaders): string[] {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const canonical = CARRIED.get(name.toLowerCase());
    if (canonical === undefined || value === undefined) continue;
    // A field sent twice would be joined by HTTP; ILP allows each once, so both are kept and the codec refuses the pair.
    for (const one of typeof value === 'string' ? [value] : value) lines.push(`${canonical}: ${one}`);
  }
  return lines;
}

function rebuild(start: string, headers: HttpHeaders, body: Buffer): IlpParseResult {
  const lines = [start, ...carried(headers)];
  if (body.length > 0) lines.push(`${HEADER.contentLength}: ${body.length}`);
  return parseIlpMessage(Buffer.concat([Buffer.from(`${lines.join('\n')}\n\n`, 'utf8'), body]));
}

/** An HTTP request to `/ilp/AGENT/PATH` read as the ILP request for AGENT, or the codec's 400. */
export function requestFromHttp(target: string, headers: HttpHeaders, body: Buffer): { agent: string; parsed: IlpParseResult } {
  const rest = target.slice(HTTP_PREFIX.length);
  const slash = rest.indexOf('/');
  const agent = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '/' : rest.slice(slash);
  const raw = headers[METHOD_HEADER.toLowerCase()];
  const method = typeof raw === 'string' ? raw.trim().toUpperCase() : 'THINK';
  if (!(ILP_METHODS as readonly string[]).includes(method)) {
    return { agent, parsed: { ok: false, error: { status: 400, field: METHOD_HEADER, message: `${METHOD_HEADER} must be one of ${ILP_METHODS.join(', ')}` } } };
  }
  return { agent, parsed: rebuild(`${method} ${path} ILP/1.0`, headers, body) };
}

/** An HTTP response read as an ILP response (a remote agent's answer). */
export function responseFromHttp(status: number, headers: HttpHeaders, body: Buffer): IlpParseResult {
  if (!isIlpStatus(status)) return { ok: false, error: { status: 400, field: 'status', message: `HTTP status ${status} is not an ILP status (§3.3)` } };
  return rebuild(`ILP/1.0 ${status} ${reasonOf(status)}`, headers, body);
}

/** An ILP message as HTTP header fields and body: the codec writes it, the start line and length are HTTP's. */
export function toHttp(message: IlpMessage): { headers: Record<string, string>; body: Buffer } {
  const text = serializeIlpMessage(message);
  const split = text.indexOf('\n\n');
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, split).split('\n').slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    if (name.toLowerCase() === HEADER.contentLength.toLowerCase()) continue;
    headers[name] = line.slice(colon + 1).trim();
  }
  if (message.kind === 'request') headers[METHOD_HEADER] = message.method;
  return { headers, body: Buffer.from(text.slice(split + 2), 'utf8') };
}
