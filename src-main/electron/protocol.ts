import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Protocol } from 'electron';
import { cockpitSecurityHeaders } from './csp.js';
import type { ShellLogger } from './logger.js';
import { APP_SCHEME, COCKPIT_ORIGIN, isCockpitUrl } from './origin.js';

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/** Module scripts are refused by Chromium unless served with a JavaScript MIME type, so this must be exact. */
export function mimeTypeFor(path: string): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file a cockpit URL names, relative to the renderer directory, or null when the URL is
 * not a plain path below it. Works on the raw string rather than on `new URL().pathname`,
 * because the WHATWG parser silently folds `..` away and we want such requests refused, not
 * reinterpreted. Each segment is decoded on its own so `%2f`, `%5c` and `%2e%2e` cannot smuggle
 * separators or parent references past the checks.
 */
export function cockpitRelativePath(rawUrl: string): string | null {
  if (!isCockpitUrl(rawUrl) || !rawUrl.startsWith(COCKPIT_ORIGIN)) return null;
  const rest = rawUrl.slice(COCKPIT_ORIGIN.length);
  const rawPath = rest.split(/[?#]/, 1)[0] ?? '';
  if (rawPath === '' || rawPath === '/') return 'index.html';
  if (!rawPath.startsWith('/')) return null;

  const segments = rawPath.slice(1).split('/');
  const decoded: string[] = [];
  for (const segment of segments) {
    let value: string;
    try {
      value = decodeURIComponent(segment);
    } catch {
      return null;
    }
    // Empty segments ("//etc") would make the remainder absolute; ":" would allow drive letters.
    if (value === '' || value === '.' || value === '..') return null;
    if (/[/\\:\0]/.test(value)) return null;
    decoded.push(value);
  }
  const joined = decoded.join('/');
  return isAbsolute(joined) ? null : joined;
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * The real path of a file under `root`, or null. Both the lexical path and the path after
 * following symlinks must stay inside the real root, so a link pointing out of the build
 * directory is as unreachable as `..`.
 */
export async function resolveCockpitFile(root: string, relativePath: string): Promise<string | null> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return null;
  }
  const candidate = resolve(realRoot, relativePath);
  if (!isInside(realRoot, candidate)) return null;
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return null;
  }
  if (!isInside(realRoot, real)) return null;
  try {
    return (await stat(real)).isFile() ? real : null;
  } catch {
    return null;
  }
}

export type CockpitRequest = Pick<Request, 'url' | 'method'>;

function respond(status: number, body: Uint8Array<ArrayBuffer> | string | null, contentType: string): Response {
  return new Response(body, {
    status,
    headers: { 'content-type': contentType, 'cache-control': 'no-cache', ...cockpitSecurityHeaders() },
  });
}

/** Serves the built renderer directory for `app://cockpit/…`; anything else is a 404. */
export function createCockpitHandler(root: string, logger: ShellLogger): (request: CockpitRequest) => Promise<Response> {
  let warnedMissingRoot = false;
  return async function handleCockpitRequest(request) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return respond(405, 'method not allowed', 'text/plain; charset=utf-8');
    }
    const relativePath = cockpitRelativePath(request.url);
    const file = relativePath === null ? null : await resolveCockpitFile(root, relativePath);
    if (file === null) {
      if (relativePath === 'index.html' && !warnedMissingRoot) {
        warnedMissingRoot = true;
        logger.warn(`cockpit files not found in ${root}; build them with \`npm run build:desktop\``);
      }
      return respond(404, 'not found', 'text/plain; charset=utf-8');
    }
    try {
      const body = request.method === 'HEAD' ? null : new Uint8Array(await readFile(file));
      return respond(200, body, mimeTypeFor(file));
    } catch (error) {
      logger.error(`could not read ${file}`, error);
      return respond(500, 'internal error', 'text/plain; charset=utf-8');
    }
  };
}

/**
 * Must run before `app.ready`. `standard` gives the cockpit a real origin (storage, relative
 * URLs), `secure` makes it a secure context, `supportFetchAPI` lets it fetch its own assets.
 * `corsEnabled` stays off so no other origin can read app:// responses.
 */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** Must run after `app.ready`: serves `root` (out/renderer) on app://. */
export function serveCockpit(protocol: Pick<Protocol, 'handle'>, root: string, logger: ShellLogger): void {
  protocol.handle(APP_SCHEME, createCockpitHandler(root, logger));
}
