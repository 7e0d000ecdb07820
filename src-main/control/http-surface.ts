import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OriginPolicy } from './origin-policy.js';
import { mimeType, resolveStaticFile } from './static-files.js';

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

export interface HttpSurfaceOptions {
  originPolicy: OriginPolicy;
  staticDir: string | null;
  csp: string;
}

/**
 * Plain HTTP side of the control surface: the built cockpit and a health probe. No data and
 * no token ever travel over HTTP; everything else goes through the authenticated socket.
 */
export function createHttpHandler(options: HttpSurfaceOptions) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!options.originPolicy.hostAllowed(req.headers.host)) {
      plain(res, 403, 'Forbidden: unexpected Host header. Open the cockpit at the address `silas start` printed.');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      plain(res, 405, 'Method not allowed');
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
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
