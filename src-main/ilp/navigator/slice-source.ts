import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { MAX_SLICE_BYTES, type SliceProblem } from './slice-file.js';

/*
 * Finding and reading slice files under the navigator's roots. Only what lies under a root is
 * read: symbolic links are not followed (a link is how a file outside the root, `/etc/passwd` or
 * another user's notes, would be read into an agent's context), each file is opened without
 * following a link and checked to be a regular file inside the root after it is open, and its
 * size is checked on the open file before it is read.
 */

const SLICE_FILE = /\.slice\.ya?ml$/;
/** Deeper trees or more files than this are not a slice library; the rest is reported, not read. */
const MAX_DEPTH = 32;
const MAX_FILES = 250_000;

export function isSliceFileName(name: string): boolean {
  return SLICE_FILE.test(name);
}

export interface SliceText {
  file: string;
  text: string;
}

const whole = (file: string, message: string): SliceProblem => ({ file, line: 1, column: 1, field: '(file)', message });

/** The root as the file system names it (a root given through a link is the person's choice). */
export function realRoot(root: string): string {
  return realpathSync(resolve(root));
}

export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** Where an open file really is: /proc names the file the descriptor holds, whatever path led to it. */
function openedPath(fd: number, path: string): string {
  try {
    return realpathSync(`/proc/self/fd/${fd}`);
  } catch {
    return realpathSync(path);
  }
}

/** One slice file's text, or why it is not read. `root` is a real path (`realRoot`). */
export function readSliceFile(root: string, path: string): SliceText | SliceProblem {
  const file = resolve(path);
  if (!isInside(root, file)) return whole(file, `the file is outside the slice folder ${root}; move or copy it into the folder`);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return whole(file, 'the file is a symbolic link, which is not followed; copy the slice into the folder instead');
    return whole(file, `the file cannot be read (${code ?? (error as Error).message}); check that it exists and is readable`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return whole(file, 'not a regular file; a slice is a .slice.yaml file');
    if (!isInside(root, openedPath(fd, file))) return whole(file, `the file resolves outside the slice folder ${root}; move or copy it into the folder`);
    if (stat.size > MAX_SLICE_BYTES) return whole(file, `the file is ${stat.size} bytes; a slice holds at most ${MAX_SLICE_BYTES} (256 KiB): split it into slices that connect to each other`);
    // One byte more than fstat said, so a file that grew while it was read is seen, not cut short.
    const buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > stat.size) return whole(file, 'the file changed while it was read; load the slices again once it is written');
    try {
      return { file, text: new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length)).replace(/^\uFEFF/, '') };
    } catch {
      return whole(file, 'the file is not UTF-8 text; save it as UTF-8');
    }
  } finally {
    closeSync(fd);
  }
}

/** Every slice file under `root` (a real path), in name order, and why any was not read. */
export function readSliceTree(root: string): { texts: SliceText[]; problems: SliceProblem[] } {
  const texts: SliceText[] = [];
  const problems: SliceProblem[] = [];
  let files = 0;
  const walk = (dir: string, depth: number): void => {
    if (files > MAX_FILES) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (error) {
      problems.push(whole(dir, `the folder cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`));
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        // Reported when it would have been read: a linked slice file or folder.
        let folder = false;
        try {
          folder = statSync(path).isDirectory();
        } catch {
          // A dangling link: reported only if it is named like a slice.
        }
        if (folder || isSliceFileName(entry.name)) problems.push(whole(path, `a symbolic link, which is not followed (it could lead outside ${root}); copy the ${folder ? 'folder' : 'slice'} into the folder instead`));
      } else if (entry.isDirectory()) {
        if (depth >= MAX_DEPTH) problems.push(whole(path, `folders nest deeper than ${MAX_DEPTH} levels; this one is not read`));
        else walk(path, depth + 1);
      } else if (isSliceFileName(entry.name)) {
        files += 1;
        if (files > MAX_FILES) {
          problems.push(whole(path, `more than ${MAX_FILES} slice files under ${root}; this one and the rest are not read`));
          return;
        }
        const read = readSliceFile(root, path);
        if ('text' in read) texts.push(read);
        else problems.push(read);
      }
    }
  };
  try {
    if (!lstatSync(root).isDirectory()) return { texts, problems: [whole(root, 'not a folder; give the folder that holds the slices')] };
  } catch (error) {
    return { texts, problems: [whole(root, `the folder cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)] };
  }
  walk(root, 0);
  return { texts, problems };
}
