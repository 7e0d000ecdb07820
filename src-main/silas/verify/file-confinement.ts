import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';

/** Kernel-like bound on symlink hops; a loop ends here instead of spinning. */
const MAX_SYMLINK_HOPS = 40;

export type ConfinedLookup = { ok: true; exists: boolean; path: string } | { ok: false; reason: string };

function within(child: string, root: string): boolean {
  return child === root || child.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Canonical forms of the permitted directories. A root that does not exist is dropped: nothing
 * can be confined to it.
 */
export function canonicalRoots(dirs: readonly string[]): string[] {
  const roots: string[] = [];
  for (const dir of dirs) {
    try {
      roots.push(realpathSync(dir));
    } catch {
      // Missing directory: nothing inside it can exist.
    }
  }
  return roots;
}

/**
 * Answers "does this file exist?" for `file_exists` (§3.3) without ever looking outside the
 * permitted directories. The path is walked one component at a time with lstat; a symlink's
 * target is checked against the roots *before* anything at the target is touched. Resolving with
 * realpath() instead would stat the outside target and turn the check into an oracle: "escapes"
 * for an existing /root/.ssh/id_rsa, "not found" for a missing one.
 */
export function lookupConfined(path: string, baseDir: string, roots: readonly string[]): ConfinedLookup {
  if (path.includes('\0')) return { ok: false, reason: 'Path contains a NUL byte' };
  if (path.includes('..')) return { ok: false, reason: `Path "${path}" contains ".."; paths must stay inside the permitted directories` };
  const outside = { ok: false as const, reason: `Path "${path}" is outside the permitted directories` };
  let target = isAbsolute(path) ? resolve(path) : resolve(baseDir, path);
  let hops = 0;
  restart: for (;;) {
    const root = roots.find((candidate) => within(target, candidate));
    if (!root) return hops === 0 ? outside : { ok: false, reason: `Path "${path}" leads through a symlink outside the permitted directories` };
    const rest = target.slice(root.length).split(sep).filter(Boolean);
    let current = root;
    for (let i = 0; i < rest.length; i += 1) {
      const next = join(current, rest[i]!);
      let stat;
      try {
        stat = lstatSync(next);
      } catch {
        return { ok: true, exists: false, path: target };
      }
      if (stat.isSymbolicLink()) {
        hops += 1;
        if (hops > MAX_SYMLINK_HOPS) return { ok: false, reason: `Path "${path}" has too many levels of symlinks` };
        const link = readlinkSync(next);
        // Lexical resolution of `..` would disagree with the kernel when it follows another link.
        if (link.split('/').includes('..')) return { ok: false, reason: `Path "${path}" leads through a symlink whose target contains ".."` };
        target = join(isAbsolute(link) ? resolve(link) : resolve(current, link), ...rest.slice(i + 1));
        continue restart;
      }
      if (i < rest.length - 1 && !stat.isDirectory()) return { ok: true, exists: false, path: target };
      current = next;
    }
    return { ok: true, exists: true, path: current };
  }
}

/**
 * Before anything runs, so a bad plan is refused with the field named and nothing half-done: every
 * `file_exists` of the plan's checks must name a place inside the permitted directories. Lexical
 * only: what the path leads through is checked again, with lstat, when the check runs.
 */
export function fileExistsOutside(checks: readonly { expect: { file_exists?: string | null } }[], baseDir: string, roots: readonly string[]): { field: string; reason: string } | null {
  const canonical = canonicalRoots(roots);
  for (const [index, check] of checks.entries()) {
    const path = check.expect.file_exists;
    if (typeof path !== 'string') continue;
    const field = `verify[${index}].expect.file_exists`;
    if (path.includes('\0') || path.split(/[\\/]/).includes('..')) return { field, reason: `"${path}" must stay inside the work directory (no "..")` };
    const target = isAbsolute(path) ? resolve(path) : resolve(baseDir, path);
    const lexicalRoots = [...roots.map((root) => resolve(root)), ...canonical];
    if (!lexicalRoots.some((root) => within(target, root))) {
      return { field, reason: `"${path}" is outside the permitted directories (${roots.join(', ')}); name a file inside the work directory` };
    }
  }
  return null;
}
