import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces a file's contents atomically: a temporary file in the same directory, fsync, the given
 * mode, rename. A reader sees the old file or the new one, never half of one; a crash leaves the
 * old one. A symbolic link is followed, so a link to a dotfiles repository stays a link. The one
 * atomic writer of the codebase (client configurations, policies, models.json).
 */
export function writeFileAtomic(file: string, bytes: Uint8Array | string, mode: number): void {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const target = existsSync(file) ? realpathSync(file) : file;
  const temp = join(dirname(target), `.${basename(target)}.silas-tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const fd = openSync(temp, 'wx', mode & 0o777);
    try {
      writeAllSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(temp, mode & 0o7777);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Writes every byte (a single writeSync may write fewer than asked). */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}
