import { lstatSync, mkdirSync, openSync, closeSync, fstatSync, readSync, constants } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { CustomerContextLoader, CustomerContextRequest } from './access-controller.js';

/**
 * Customer context files (spec 002 §5.6): `<customer_context_dir>/<connection id>.json`, where
 * the directory lies inside the data directory and no other user can write to it. Not a `/tmp`
 * path and not the verification directory, so neither another local user nor the agent under
 * verification can plant a context.
 */

const MAX_BYTES = 64 * 1024;
const CONNECTION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface FileCustomerContextOptions {
  dataDir: string;
  /** Relative to `dataDir`, or absolute inside it. */
  dir: string;
}

function notWritableByOthers(mode: number): boolean {
  return (mode & 0o022) === 0;
}

export class FileCustomerContextLoader implements CustomerContextLoader {
  readonly dir: string;

  constructor(options: FileCustomerContextOptions) {
    const dataDir = resolve(options.dataDir);
    const dir = isAbsolute(options.dir) ? resolve(options.dir) : resolve(dataDir, options.dir);
    const rel = relative(dataDir, dir);
    if (rel === '' || isAbsolute(rel) || rel.split(sep)[0] === '..') {
      throw new SilasError(ErrorCode.Config, `customer_context_dir must be a directory inside the data directory ${dataDir}; got ${dir}`);
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = lstatSync(dir);
    if (!info.isDirectory()) throw new SilasError(ErrorCode.Config, `customer_context_dir ${dir} is not a directory (symlinks are refused)`);
    if (process.platform !== 'win32') {
      if (!notWritableByOthers(info.mode)) throw new SilasError(ErrorCode.Permission, `customer_context_dir ${dir} is writable by other users; run chmod 700 on it`);
      if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
        throw new SilasError(ErrorCode.Permission, `customer_context_dir ${dir} belongs to another user`);
      }
    }
    this.dir = dir;
  }

  /** The context object, or null when there is none or the file is unsafe (fail closed: no context). */
  load(request: CustomerContextRequest): JsonObject | null {
    if (!CONNECTION_ID.test(request.connection_id)) return null;
    const file = join(this.dir, `${request.connection_id}.json`);
    let fd: number;
    try {
      // O_NOFOLLOW: a symlink planted in place of the file is not followed.
      fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch {
      return null;
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile() || info.size > MAX_BYTES) return null;
      if (process.platform !== 'win32' && !notWritableByOthers(info.mode)) return null;
      const buffer = Buffer.alloc(info.size);
      let read = 0;
      while (read < info.size) {
        const n = readSync(fd, buffer, read, info.size - read, read);
        if (n === 0) break;
        read += n;
      }
      const parsed: unknown = JSON.parse(buffer.subarray(0, read).toString('utf8'));
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as JsonObject) : null;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
}
