import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_SECRET_VALUE_CHARS, SECRET_INPUT_PATH, SecretStoreArgs } from '../../src-shared/schemas/stream.js';
import { isSilasError } from '../../src-shared/errors.js';
import type { OriginPolicy } from './origin-policy.js';
import { mimeType, resolveStaticFile } from './static-files.js';
import { readCappedBody } from '../ilp/transport/http-endpoint.js';
import type { QueuePressure } from '../silas/stream/stream-limits.js';

/** The cockpit's CSP when served to a browser: nothing but our own scripts, styles and socket. */
export function cockpitCsp(wsOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${wsOrigin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...SECURITY_HEADERS });
  res.end(`${text}\n`);
}

/**
 * §8.1 secure input: `POST /secrets/NAME` with `{"value": "…"}`, the cockpit credential as a
 * bearer token and the cockpit's Origin. The value goes to the keyring and is dropped; it is never
 * echoed, logged or sent over the WebSocket.
 */
interface SecretInputEndpoint {
  /** Whether `candidate` is a cockpit credential in force (`CockpitCredentials.match`, constant time). */
  accepts(candidate: string): boolean;
  store(name: string, value: string): void;
  onRefused(reason: string, peer: string): void;
}

export interface HttpSurfaceOptions {
  originPolicy: OriginPolicy;
  staticDir: string | null;
  csp: string;
  secretInput?: SecretInputEndpoint;
  /** ILP over HTTP (docs/ilp.md "Transports"), behind the same Host, Origin and credential rules. */
  ilp?: (req: IncomingMessage, res: ServerResponse, target: string) => Promise<void>;
  /** What `GET /health` reports (spec 002 §8.1, §18.6): open cockpit connections and the Stream's queue pressure. */
  health?: () => HealthReport;
}

interface HealthReport {
  connections: number;
  /** Null where no Stream runs (a server built without a runtime). */
  queue: QueuePressure | null;
}

const MAX_SECRET_BODY_BYTES = MAX_SECRET_VALUE_CHARS * 4 + 64;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...SECURITY_HEADERS });
  res.end(`${JSON.stringify(body)}\n`);
}


async function handleSecretInput(req: IncomingMessage, res: ServerResponse, rawName: string, options: HttpSurfaceOptions): Promise<void> {
  const endpoint = options.secretInput;
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (!endpoint) return plain(res, 404, 'Not found');
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    return plain(res, 405, 'Method not allowed: POST {"value": "…"} to store a secret');
  }
  if (!options.originPolicy.originAllowed(req.headers.origin)) {
    endpoint.onRefused('foreign or missing Origin', peer);
    return plain(res, 403, 'Forbidden: secrets are accepted only from the cockpit page');
  }
  const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  if (!auth || !endpoint.accepts(auth[1]!)) {
    endpoint.onRefused('wrong or missing cockpit credential', peer);
    return plain(res, 401, 'Unauthorized: send the cockpit credential as a bearer token');
  }
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return plain(res, 415, 'Send the secret as JSON: {"value": "…"} with Content-Type: application/json');
  let name: string;
  try {
    name = decodeURIComponent(rawName);
  } catch {
    return plain(res, 400, 'The secret name in the path is not valid percent-encoding');
  }
  const body = await readCappedBody(req, MAX_SECRET_BODY_BYTES);
  if (body === null) return plain(res, 413, `The secret is too large: at most ${MAX_SECRET_VALUE_CHARS} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    // JSON.parse quotes the text around the error, which is the secret: it is not repeated.
    return plain(res, 400, 'The body is not valid JSON; send {"value": "…"}');
  }
  const value = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.keys(parsed).every((k) => k === 'value') ? (parsed as { value?: unknown }).value : undefined;
  const checked = SecretStoreArgs.safeParse({ name, value });
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return plain(res, 400, `${issue.path.join('.') || 'body'}: ${issue.message}${issue.path[0] === 'value' ? '; send {"value": "…"} and nothing else' : ''}`);
  }
  try {
    endpoint.store(checked.data.name, checked.data.value);
  } catch (error) {
    return plain(res, 500, `The secret could not be stored in the OS keyring: ${isSilasError(error) ? error.message : 'the keyring failed'}`);
  }
  json(res, 200, { stored: true });
}

/**
 * Plain HTTP side of the control surface: the built cockpit, a health probe, the secure input of
 * §8.1 (a secret into the keyring, behind the cockpit credential and Origin) and ILP requests
 * (behind a runtime-issued credential). No other data is served over HTTP; everything else goes
 * through the authenticated socket.
 */
export function createHttpHandler(options: HttpSurfaceOptions) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!options.originPolicy.hostAllowed(req.headers.host)) {
      plain(res, 403, 'Forbidden: unexpected Host header. Open the cockpit at the address `silas start` printed.');
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith(SECRET_INPUT_PATH)) return handleSecretInput(req, res, path.slice(SECRET_INPUT_PATH.length), options);
    if (path.startsWith('/ilp/')) {
      if (!options.ilp) return plain(res, 503, 'ILP is not running in this runtime');
      return options.ilp(req, res, req.url ?? path);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      plain(res, 405, 'Method not allowed');
      return;
    }
    if (path === '/health') {
      // §8.1 `{"status": "ok", "connections": int}`, with §18.6's queue pressure; counts only, behind the Host check like /healthz.
      const report = options.health?.() ?? { connections: 0, queue: null };
      json(res, 200, { status: 'ok', connections: report.connections, queue: report.queue });
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...SECURITY_HEADERS });
      res.end('{"status":"ok"}\n');
      return;
    }
    if (!options.staticDir) {
      plain(res, 503, 'The cockpit is not built. Run `npm run build:cockpit` in the Silas directory, then reload.');
      return;
    }
    const file = resolveStaticFile(options.staticDir, path);
    if (!file) {
      plain(res, 404, 'Not found');
      return;
    }
    try {
      const body = await readFile(file);
      const isHtml = file.endsWith('.html');
      res.writeHead(200, {
        'Content-Type': mimeType(file),
        'Content-Length': body.length,
        'Cache-Control': isHtml ? 'no-store' : 'public, max-age=3600',
        'Content-Security-Policy': options.csp,
        ...SECURITY_HEADERS,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      plain(res, 500, 'Could not read the cockpit file');
    }
  };
}
