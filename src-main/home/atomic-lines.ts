import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, openSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeAllSync } from './atomic-file.js';

/** Lines gathered into one write: a write is not per line, and memory holds one chunk. */
const CHUNK_CHARS = 256 * 1024;

/**
 * `writeFileAtomic` (atomic-file.ts) for output too large to hold: the lines are written one
 * chunk at a time to a temporary file beside `file`, fsynced, given `mode` and renamed over it. A
 * reader sees the old file or the whole new one; a failure part-way (the lines throw, the disk
 * fills) leaves the old one and no temporary file. Returns the bytes written.
 */
export function writeLinesAtomic(file: string, lines: Iterable<string>, mode: number): number {
  const target = existsSync(file) ? realpathSync(file) : file;
  const temp = join(dirname(target), `.${basename(target)}.silas-tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  let bytes = 0;
  try {
    const fd = openSync(temp, 'wx', mode & 0o777);
    try {
      let chunk = '';
      const flush = () => {
        const data = Buffer.from(chunk, 'utf8');
        writeAllSync(fd, data);
        bytes += data.length;
        chunk = '';
      };
      for (const line of lines) {
        chunk += `${line}\n`;
        if (chunk.length >= CHUNK_CHARS) flush();
      }
      flush();
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(temp, mode & 0o7777);
    renameSync(temp, target);
    return bytes;
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
