import { mkdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { SandboxErrorCode } from '../../src-shared/silas/execution.js';
import { SilasError } from '../../src-shared/errors.js';

/**
 * Host paths the sandbox may never expose, whatever a config says: the whole root would undo the
 * isolation, and /proc, /sys, /dev of the host would expose other processes and devices (the
 * sandbox gets its own /proc and a minimal /dev instead).
 */
const FORBIDDEN_EXACT = new Set(['/']);
const FORBIDDEN_TREES = ['/proc', '/sys', '/dev'];

export interface ResolvePathOptions {
  /** Which config field the path came from, for the error message. */
  field: string;
  /** Relative paths are resolved against this directory. */
  baseDir: string;
  /** Create the directory (and parents) when it does not exist. */
  create?: boolean;
  /** The path must name a directory (work_dir); read/write paths may also be single files. */
  directory?: boolean;
}

function invalid(field: string, path: string, why: string): SilasError {
  return new SilasError(SandboxErrorCode.PathInvalid, `${field}: "${path}" ${why}`);
}

/** True when `child` is `parent` or lies beneath it (both absolute, normalised). */
export function isWithin(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(prefix);
}

/**
 * Turns a configured path into the canonical host path that will be mounted. `..` segments are
 * refused rather than normalised away, because a plan that needs them is either confused or
 * probing; symlinks are resolved so that the mount exposes what the link really points at and
 * the forbidden-path check sees the real target.
 */
export function resolveSandboxPath(path: string, options: ResolvePathOptions): string {
  const { field } = options;
  if (path.includes('\0')) throw invalid(field, path, 'contains a NUL byte');
  if (path.split(/[\\/]+/).includes('..')) {
    throw invalid(field, path, 'contains a ".." segment; give the path without parent references');
  }
  const absolute = isAbsolute(path) ? resolve(path) : resolve(options.baseDir, path);
  if (options.create) {
    try {
      mkdirSync(absolute, { recursive: true });
    } catch (error) {
      throw invalid(field, path, `could not be created: ${(error as Error).message}`);
    }
  }
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    throw invalid(field, path, 'does not exist on this machine; create it or remove it from the sandbox config');
  }
  if (FORBIDDEN_EXACT.has(real) || FORBIDDEN_TREES.some((tree) => isWithin(real, tree))) {
    const via = real === absolute ? '' : ` (it resolves to "${real}")`;
    throw invalid(field, path, `may not be exposed to the sandbox${via}; name a narrower directory`);
  }
  if (options.directory && !statSync(real).isDirectory()) throw invalid(field, path, 'is not a directory');
  return real;
}
