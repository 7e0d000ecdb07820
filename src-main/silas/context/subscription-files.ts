import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, normalize } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/*
 * Reading a subscribed file (spec 002 §3.5 "Subscription semantics"; docs/silas/context.md
 * "Subscriptions"). What a subscription reads is sent to a model provider, and its target may
 * have been chosen weeks ago while the file system kept changing, so every read is checked again:
 *
 * - only an absolute path that is its own real path (no symlink in any component, no `..`): a
 *   file swapped for a link to ~/.ssh/id_rsa is refused, not followed;
 * - only a regular file: a directory, device, FIFO or socket is refused before it is opened, and
 *   the opened descriptor (O_NOFOLLOW, O_NONBLOCK: a FIFO put in its place cannot hang the turn)
 *   must be the same regular file;
 * - bounded: a whole file larger than the byte bound is refused from its size, without reading;
 *   a line range reads forward in chunks, keeps only its lines and stops at the bound or after
 *   SCAN_LIMIT_BYTES, so a huge file is never held in memory;
 * - text only: a file with NUL bytes is refused (binary content is not context).
 */

/** A line range is looked for in the first 4 MiB of its file at most (a render stays within the event loop's budget). */
const SCAN_LIMIT_BYTES = 4 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

export type FileRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'unreadable'; detail: string };

const refused = (detail: string): FileRead => ({ ok: false, reason: 'unreadable', detail });

/** Why `path` may not be subscribed to or read, or null when it is a regular file reached without links. */
export function checkSubscribablePath(path: string): string | null {
  if (!isAbsolute(path)) return `"${path}" is not an absolute path; give the full path from /`;
  if (normalize(path) !== path) return `"${path}" is not in normal form (no "..", "." or doubled "/"); give the file's plain absolute path`;
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    return `"${path}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`;
  }
  if (stats.isSymbolicLink()) return `"${path}" is a symbolic link; subscribe to the file it points to by its own path`;
  if (!stats.isFile()) return `"${path}" is not a regular file (${kindOf(stats)}); only regular files can be kept in context`;
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    return `"${path}" cannot be resolved: ${(error as NodeJS.ErrnoException).code ?? 'error'}`;
  }
  if (real !== path) return `"${path}" passes through a symbolic link (it is ${real}); subscribe to the real path`;
  return null;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a file';
}

/** Opens the checked path without following a link or blocking, and hands the descriptor over if it is still that regular file. */
function withFile(path: string, use: (fd: number, size: number) => FileRead): FileRead {
  const problem = checkSubscribablePath(path);
  if (problem !== null) return refused(problem);
  const before = lstatSync(path);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return refused(`"${path}" cannot be opened: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile() || opened.ino !== before.ino || opened.dev !== before.dev) return refused(`"${path}" changed while it was opened; it was not read`);
    return use(fd, opened.size);
  } finally {
    closeSync(fd);
  }
}

const binary = (path: string): FileRead => refused(`"${path}" holds binary data (NUL bytes); only text can be kept in context`);

/** The whole file, if it is at most `maxBytes` long. */
export function readWholeFile(path: string, maxBytes: number): FileRead {
  return withFile(path, (fd, size) => {
    if (size > maxBytes) return { ok: false, reason: 'too_large', detail: `"${path}" is ${size} bytes, more than the ${maxBytes} bytes max_subscription_tokens allows` };
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const bytes = buffer.subarray(0, read);
    if (bytes.includes(0)) return binary(path);
    return { ok: true, text: bytes.toString('utf8') };
  });
}

/** Lines `start`..`end` (from 1, inclusive) joined by "\n", reading at most SCAN_LIMIT_BYTES and keeping at most `maxBytes`. */
export function readFileLines(path: string, start: number, end: number, maxBytes: number): FileRead {
  return withFile(path, (fd) => {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.alloc(CHUNK_BYTES);
    const kept: string[] = [];
    let keptBytes = 0;
    let line = 1;
    let partial = '';
    let offset = 0;
    const take = (text: string): FileRead | null => {
      keptBytes += Buffer.byteLength(text, 'utf8') + 1;
      if (keptBytes > maxBytes) return { ok: false, reason: 'too_large', detail: `lines ${start}-${end} of "${path}" are more than the ${maxBytes} bytes max_subscription_tokens allows` };
      kept.push(text);
      return null;
    };
    while (line <= end) {
      if (offset >= SCAN_LIMIT_BYTES) return refused(`line ${line} of "${path}" is past its first ${SCAN_LIMIT_BYTES} bytes; subscribe to an earlier range`);
      const n = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, SCAN_LIMIT_BYTES - offset), offset);
      if (n === 0) break;
      const chunk = buffer.subarray(0, n);
      if (chunk.includes(0)) return binary(path);
      offset += n;
      const parts = (partial + decoder.write(chunk)).split('\n');
      partial = parts.pop()!;
      for (const part of parts) {
        if (line >= start && line <= end) {
          const over = take(part);
          if (over) return over;
        }
        line += 1;
        if (line > end) break;
      }
      // A range's own line longer than the bound is refused without waiting for its end.
      if (line >= start && line <= end && Buffer.byteLength(partial, 'utf8') > maxBytes) return take(partial) ?? refused('unreachable');
    }
    if (line <= end) {
      partial += decoder.end();
      if (partial.length > 0 && line >= start) {
        const over = take(partial);
        if (over) return over;
      }
    }
    return { ok: true, text: kept.join('\n') };
  });
}
