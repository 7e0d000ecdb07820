import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * Path confinement for `file_valid` gates and `file_exists` expectations (spec 002 §3.3, §5.5.2):
 * no `..`, inside one of the permitted directories both as written and after symlinks are
 * resolved, so a link planted in the work directory cannot point a check at `~/.ssh`.
 */

const OUTSIDE = 'Path outside permitted directories';
const NOT_FOUND = 'File not found';

export type FileCheck =
  | { ok: true; path: string; size: number }
  | { ok: false; reason: string };

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/** Lexical check: the path the caller wrote, resolved against the first root when relative. */
export function confineLexically(raw: string, roots: readonly string[]): string | null {
  if (roots.length === 0 || raw.length === 0 || raw.length > 4096 || raw.includes('\0')) return null;
  if (raw.split(/[\\/]/).includes('..')) return null;
  const path = isAbsolute(raw) ? resolve(raw) : resolve(roots[0]!, raw);
  return roots.some((root) => within(resolve(root), path)) ? path : null;
}

/** Confines `raw`, then requires an existing regular file whose real path is still inside a root's real path. */
export async function checkFile(raw: string, roots: readonly string[]): Promise<FileCheck> {
  const path = confineLexically(raw, roots);
  if (path === null) return { ok: false, reason: OUTSIDE };
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return { ok: false, reason: NOT_FOUND };
  }
  const realRoots = await Promise.all(roots.map((root) => realpath(root).catch(() => null)));
  if (!realRoots.some((root) => root !== null && within(root, real))) return { ok: false, reason: OUTSIDE };
  const info = await stat(real);
  if (!info.isFile()) return { ok: false, reason: 'Not a regular file' };
  return { ok: true, path: real, size: info.size };
}
