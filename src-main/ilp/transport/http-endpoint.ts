import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse } from '../composition/messages.js';
import { ILP_LIMITS } from '../protocol/limits.js';
import type { IlpRequest, IlpResponse } from '../protocol/message.js';
import { serializeIlpMessage } from '../protocol/serialize.js';
import { HTTP_PREFIX, requestFromHttp, toHttp } from './http-mapping.js';

/*
 * The ILP endpoint on the runtime's loopback control server (docs/ilp.md "Transports"): `POST
 * /ilp/AGENT-ID/PATH` under the same rules as the rest of the control surface — the Host must be
 * the runtime's, a browser's Origin must be the cockpit's, and the caller shows a credential the
 * runtime issued (the ask credential of control.json, as the proxies do, or the cockpit's). A
 * request is read by the same codec as on the socket; every answer, refusals included, is an ILP
 * response.
 */

export interface IlpHttpGate {
  /** Whether the bearer credential is one the runtime issued. */
  accepts(token: string): boolean;
  /** Whether a browser Origin (when there is one) is the cockpit's. */
  originAllowed(origin: string | undefined): boolean;
  onRefused(reason: string, peer: string): void;
}

export interface IlpHandler {
  handle(call: { agent: string; request: IlpRequest; requestText: string; signal: AbortSignal }): Promise<{ response: IlpResponse }>;
}

export function ilpHttpHandler(gate: IlpHttpGate, handler: IlpHandler) {
  return async function handleIlp(req: IncomingMessage, res: ServerResponse, target: string): Promise<void> {
    const peer = req.socket.remoteAddress ?? 'unknown';
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return send(res, errorResponse(400, `ILP over HTTP is a POST to ${HTTP_PREFIX}AGENT/PATH with the method in ILP-Method`), 405);
    }
    if (req.headers.origin !== undefined && !gate.originAllowed(req.headers.origin)) {
      gate.onRefused('foreign Origin', peer);
      return send(res, errorResponse(400, 'Origin: ILP requests are accepted from the cockpit page or from programs without an Origin'), 403);
    }
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    if (!auth || !gate.accepts(auth[1]!)) {
      gate.onRefused('wrong or missing credential', peer);
      return send(res, errorResponse(400, 'Authorization: send the token from HOME/control.json as a bearer token'), 401);
    }
    const body = await readCappedBody(req, ILP_LIMITS.body);
    if (body === null) return send(res, errorResponse(400, `body: larger than ${ILP_LIMITS.body} bytes (§10.4)`), 413);
    const { agent, parsed } = requestFromHttp(target, req.headers, body);
    if (!parsed.ok) return send(res, errorResponse(400, `${parsed.error.field}: ${parsed.error.message}`));
    if (parsed.message.kind !== 'request') return send(res, errorResponse(400, 'start-line: not a request'));
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort(new Error('the client went away'));
    });
    try {
      const { response } = await handler.handle({ agent, request: parsed.message, requestText: serializeIlpMessage(parsed.message), signal: aborted.signal });
      send(res, response);
    } catch (error) {
      send(res, errorResponse(500, `the ILP request failed: ${(error as Error).message}`));
    }
  };
}

/** An ILP response on HTTP: its status, its header fields one per line, its body; `httpStatus` only where HTTP needs its own (401, 405, 413). */
function send(res: ServerResponse, response: IlpResponse, httpStatus?: number): void {
  if (res.headersSent) return;
  const { headers, body } = toHttp(response);
  res.writeHead(httpStatus ?? response.status, { ...headers, 'Content-Length': body.length, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/** The body up to `max` bytes, or null when it is longer (the rest is drained unread); the control server's one bounded reader. */
export function readCappedBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
