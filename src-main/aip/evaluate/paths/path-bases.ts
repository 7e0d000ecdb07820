import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Path bases (docs/protected-paths.md "Relative paths: every directory the server may use"): every
 * directory a governed MCP server may resolve a relative path against. The proxy's working
 * directory is only one of them: a filesystem server resolves against the directory named on its
 * command line, or against the MCP roots the client announces. The protected-path matcher joins
 * each relative argument with every base and blocks when any join is protected, so a base too many
 * can only block more, a base missing lets a relative path through.
 */

/** More bases than this (a client announcing hundreds of roots) fail closed for relative paths. */
export const MAX_PATH_BASES = 256;

export class PathBases {
  private readonly dirs: string[] = [];
  private changes = 0;
  private overflow = false;

  constructor(initial: readonly string[] = []) {
    for (const dir of initial) this.add(dir);
  }

  /** Adds an absolute directory; returns whether the list changed. */
  add(dir: string): boolean {
    if (!isAbsolute(dir)) return false;
    const abs = resolve(dir);
    if (this.dirs.includes(abs)) return false;
    if (this.dirs.length >= MAX_PATH_BASES) {
      this.overflow = true;
      this.changes += 1;
      return true;
    }
    this.dirs.push(abs);
    this.changes += 1;
    return true;
  }

  list(): readonly string[] {
    return this.dirs;
  }

  /** Grows with every change, so a matcher knows when to recompute what it derived from the list. */
  get revision(): number {
    return this.changes;
  }

  /** Bases were dropped for the cap: relative paths cannot all be resolved. */
  get overflowed(): boolean {
    return this.overflow;
  }
}

/**
 * The bases known before the server starts: its working directory, and every argument of its
 * command line that names an existing directory (absolute, or relative to that working
 * directory), including the value of `--opt=DIR`.
 */
export function commandLineBases(cwd: string, args: readonly string[], isDirectory: (p: string) => boolean = defaultIsDirectory): string[] {
  const out = [resolve(cwd)];
  for (const arg of args) {
    const eq = arg.startsWith('-') ? arg.indexOf('=') : -1;
    for (const value of eq === -1 ? [arg] : [arg, arg.slice(eq + 1)]) {
      if (value === '' || value.length > 4096 || value.includes('\0')) continue;
      const abs = resolve(cwd, value.startsWith('file:') ? safeFileUrl(value) ?? value : value);
      if (!out.includes(abs) && isDirectory(abs)) out.push(abs);
    }
  }
  return out;
}

/**
 * The directories of a `roots/list` result the client sends (`{roots: [{uri: "file:///…"}]}`);
 * empty when the message is not one. Anything but a `file:` URI names no local directory.
 */
export function announcedRoots(message: unknown): string[] {
  if (!isRecord(message) || !isRecord(message.result) || !Array.isArray(message.result.roots)) return [];
  const out: string[] = [];
  for (const root of message.result.roots) {
    if (!isRecord(root) || typeof root.uri !== 'string') continue;
    const dir = safeFileUrl(root.uri);
    if (dir !== null) out.push(dir);
  }
  return out;
}

function safeFileUrl(uri: string): string | null {
  if (!/^file:/i.test(uri)) return null;
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}

function defaultIsDirectory(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
