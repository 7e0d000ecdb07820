import { realpathSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/*
 * Serving the built cockpit, shared by the headless HTTP surface and the desktop app://
 * protocol: one MIME table and one path policy, so a traversal fixed in one is fixed in both.
 */

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
export function mimeType(path: string): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file a raw URL path (`/assets/x.js`, query allowed) names relative to the root, or null.
 * Works on the raw string rather than a parsed pathname, because the WHATWG parser silently
 * folds `..` away and we want such requests refused, not reinterpreted. Each segment is
 * decoded on its own so `%2f`, `%5c` and `%2e%2e` cannot smuggle separators or parent
 * references past the checks; empty segments and `:` (drive letters) are refused too.
 */
export function safeRelativePath(rawPath: string): string | null {
  const path = rawPath.split(/[?#]/, 1)[0] ?? '';
  if (path === '' || path === '/') return 'index.html';
  if (!path.startsWith('/')) return null;
  const decoded: string[] = [];
  for (const segment of path.slice(1).split('/')) {
    let value: string;
    try {
      value = decodeURIComponent(segment);
    } catch {
      return null;
    }
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
 * The real path of a regular file under `root`, or null. Both the lexical path and the path
 * after following symlinks must stay inside the real root, so a link pointing out of the build
 * directory is as unreachable as `..`.
 */
export function resolveInsideRoot(root: string, relativePath: string): string | null {
  try {
    const realRoot = realpathSync(root);
    const candidate = resolve(realRoot, relativePath);
    if (!isInside(realRoot, candidate)) return null;
    const real = realpathSync(candidate);
    if (!isInside(realRoot, real)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** URL path to a file inside `root`, or null. */
export function resolveStaticFile(root: string, urlPath: string): string | null {
  const relativePath = safeRelativePath(urlPath);
  return relativePath === null ? null : resolveInsideRoot(root, relativePath);
}

export function cockpitIndex(root: string): string {
  return join(root, 'index.html');
}
