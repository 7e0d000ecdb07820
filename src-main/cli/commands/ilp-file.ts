import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { ILP_LIMITS } from '../../ilp/protocol/limits.js';

/*
 * Files the `silas ilp` commands read (a message, a response, a request body): at most one
 * message's size, and only regular files, so a FIFO or a device never blocks or floods a command.
 */

/** The most a message file may be: one message's headers and body, and the blank line between. */
const FILE_MAX = ILP_LIMITS.headerSection + ILP_LIMITS.body + 4;

/** The file's bytes, or why it cannot be read; a FIFO or device is refused before it is read. */
export function readBoundedFile(file: string, max = FILE_MAX): Uint8Array | string {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO to read would otherwise wait for a writer that never comes.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `cannot read ${file}: no such file`;
    if (code === 'EACCES') return `cannot read ${file}: permission denied`;
    return `cannot read ${file}: ${(error as Error).message}`;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return `${file} is not a regular file; name a file`;
    if (stat.size > max) return `${file} is ${stat.size} bytes; it may be at most ${max}`;
    const bytes = new Uint8Array(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

