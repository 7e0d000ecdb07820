import { readFile } from 'node:fs/promises';
import type { Protocol } from 'electron';
import { mimeType, resolveInsideRoot, safeRelativePath } from '../control/static-files.js';
import { cockpitSecurityHeaders } from './csp.js';
import type { ShellLogger } from './logger.js';
import { APP_SCHEME, COCKPIT_ORIGIN, isCockpitUrl } from './origin.js';

/** Kept under its old name for the shell; the table lives with the headless server's. */
export const mimeTypeFor = mimeType;

/**
 * The file a cockpit URL names, relative to the renderer directory, or null when the URL is
 * not on the cockpit origin or not a plain path below it (see `safeRelativePath`).
 */
export function cockpitRelativePath(rawUrl: string): string | null {
  if (!isCockpitUrl(rawUrl) || !rawUrl.startsWith(COCKPIT_ORIGIN)) return null;
  const rest = rawUrl.slice(COCKPIT_ORIGIN.length);
  return rest === '' ? 'index.html' : safeRelativePath(rest);
}

/** The real path of a file under `root`, or null; symlinks may not leave the root. */
export async function resolveCockpitFile(root: string, relativePath: string): Promise<string | null> {
  return resolveInsideRoot(root, relativePath);
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
