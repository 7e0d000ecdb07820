import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/*
 * One file read the way anything that another process may have replaced must be read: only a
 * regular file (a FIFO or device opened to read would block the runtime or flood it), at most
 * `max` bytes, and never a file that grew while it was read. Used by the `silas ilp` commands and
 * by HOME/ilp.yaml's loader.
 */

export type BoundedRead = { ok: true; bytes: Uint8Array } | { ok: false; absent: boolean; message: string };

export function readBoundedFile(file: string, max: number): BoundedRead {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO to read would otherwise wait for a writer that never comes.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, absent: true, message: `cannot read ${file}: no such file` };
    if (code === 'EACCES') return { ok: false, absent: false, message: `cannot read ${file}: permission denied` };
    return { ok: false, absent: false, message: `cannot read ${file}: ${(error as Error).message}` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, absent: false, message: `${file} is not a regular file; name a file` };
    if (stat.size > max) return { ok: false, absent: false, message: `${file} is ${stat.size} bytes; it may be at most ${max}` };
    // One byte more than fstat said, so a file that grew while it was read is seen, not cut short.
    const bytes = new Uint8Array(stat.size + 1);
    let read = 0;
    for (let n = 1; n > 0 && read < bytes.length; read += n) n = readSync(fd, bytes, read, bytes.length - read, null);
    if (read > stat.size) return { ok: false, absent: false, message: `${file} changed while it was read; try again once it is written` };
    return { ok: true, bytes: bytes.subarray(0, read) };
  } finally {
    closeSync(fd);
  }
}
