import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ErrorCode } from '../../../src-shared/errors.js';
import type { MemoryItem } from '../../../src-shared/silas/memory.js';
import {
  BundleProblem,
  corruptBundle,
  foreignFile,
  invalidLine,
  isTrailer,
  MAX_BUNDLE_LINE_BYTES,
  parseHeader,
  parseItem,
  parseTrailer,
  type BundleHeader,
} from './bundle-format.js';

/*
 * Reads a bundle (bundle-format.ts) line by line, synchronously, so the import can run the whole
 * file inside one SQLite transaction (better-sqlite3 transactions are synchronous) while holding
 * one line at a time: a bundle of a million memories is never in memory whole.
 */

export interface BundleScan {
  header: BundleHeader;
  /** Records read (the header's and the trailer's count, both checked). */
  count: number;
  /** SHA-256 of every line before the trailer, each with its newline: the trailer's, checked. */
  sha256: string;
  bytes: number;
}

export interface ScanHooks {
  /** Each record, in order, once it is valid. Throwing stops the scan. */
  item?(item: MemoryItem, line: number): void;
  /** Every `every` records. */
  progress?: { every: number; report(records: number, total: number): void };
}

const CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;

interface Line {
  bytes: Buffer;
  number: number;
  /** False for a last line without its newline (a file cut short, unless it is the trailer). */
  terminated: boolean;
}

/** The file's lines as bytes, one at a time; none longer than MAX_BUNDLE_LINE_BYTES. */
function* lines(file: string, fd: number): Generator<Line> {
  const chunk = Buffer.allocUnsafe(CHUNK);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  for (;;) {
    const read = readSync(fd, chunk, 0, CHUNK, null);
    if (read === 0) break;
    let start = 0;
    for (let at = chunk.indexOf(NEWLINE, 0); at !== -1 && at < read; at = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, at);
      const bytes = pending.length === 0 ? Buffer.from(piece) : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      number += 1;
      if (bytes.length > MAX_BUNDLE_LINE_BYTES) throw tooLong(file, number);
      yield { bytes, number, terminated: true };
      start = at + 1;
    }
    if (start < read) {
      pending.push(Buffer.from(chunk.subarray(start, read)));
      pendingBytes += read - start;
      if (pendingBytes > MAX_BUNDLE_LINE_BYTES) throw tooLong(file, number + 1);
    }
  }
  if (pendingBytes > 0) yield { bytes: Buffer.concat(pending), number: number + 1, terminated: false };
}

const tooLong = (file: string, line: number) => foreignFile(file, `line ${line} is longer than ${MAX_BUNDLE_LINE_BYTES / 1024 / 1024} MiB`);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A line as JSON, or null when it is not JSON (the caller says what that means where it is). */
function json(bytes: Buffer): { value: unknown } | null {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

/**
 * Checks the whole bundle at `file`: header, every record, count and SHA-256. Returns what it
 * holds, or throws a BundleProblem naming the line, the field and the fix. With `hooks.item`, each
 * valid record is handed over as it is read (the caller's transaction rolls back on a later throw).
 */
export function scanBundle(file: string, hooks: ScanHooks = {}): BundleScan {
  let fd: number;
  try {
    fd = openSync(file, 'r');
    if (!fstatSync(fd).isFile()) {
      closeSync(fd);
      throw new Error('not a regular file');
    }
  } catch (error) {
    throw new BundleProblem(ErrorCode.NotFound, `cannot read the bundle ${file}: ${(error as Error).message}; name a file that \`silas memory export --out\` wrote`, null);
  }
  try {
    return scan(file, lines(file, fd), hooks);
  } finally {
    closeSync(fd);
  }
}

function scan(file: string, source: Generator<Line>, hooks: ScanHooks): BundleScan {
  const hash = createHash('sha256');
  let bytes = 0;
  const first = source.next();
  if (first.done) throw foreignFile(file, 'the file is empty');
  const headerJson = json(first.value.bytes);
  if (headerJson === null) throw foreignFile(file, 'its first line is not JSON text');
  if (!first.value.terminated) throw corruptBundle(file, 1, 'the bundle is truncated: it ends inside its header line');
  const header = parseHeader(file, headerJson.value);
  const take = (line: Line) => {
    hash.update(line.bytes);
    hash.update('\n');
    bytes += line.bytes.length + 1;
  };
  take(first.value);

  let count = 0;
  for (const line of source) {
    if (line.bytes.length === 0) throw invalidLine(file, line.number, '(the line)', 'an empty line inside the bundle', 'remove it, or export the bundle again');
    const parsed = json(line.bytes);
    if (parsed === null) {
      if (!line.terminated) throw corruptBundle(file, line.number, `the bundle is truncated: its last line (${line.number}) is cut short`);
      throw invalidLine(file, line.number, '(the line)', 'not JSON text (a record is one JSON object per line)');
    }
    if (isTrailer(parsed.value)) {
      const trailer = parseTrailer(file, line.number, parsed.value);
      const rest = source.next();
      if (!rest.done) throw invalidLine(file, rest.value.number, '(the line)', 'a line after the trailer', 'remove everything after the {"end": true, …} line');
      const sha256 = hash.digest('hex');
      if (trailer.count !== count || header.count !== count) {
        throw corruptBundle(file, line.number, `the bundle holds ${count} memories, but its header announces ${header.count} and its trailer ${trailer.count}`);
      }
      if (trailer.sha256 !== sha256) throw corruptBundle(file, line.number, 'its lines do not match the SHA-256 in its trailer (changed after it was exported)');
      return { header, count, sha256, bytes: bytes + line.bytes.length + 1 };
    }
    if (!line.terminated) throw corruptBundle(file, line.number, `the bundle is truncated: it ends after line ${line.number} without its trailer`);
    const item = parseItem(file, line.number, parsed.value, header);
    take(line);
    count += 1;
    if (count > header.count) throw corruptBundle(file, line.number, `the bundle holds more memories than the ${header.count} its header announces`);
    hooks.item?.(item, line.number);
    if (hooks.progress && count % hooks.progress.every === 0) hooks.progress.report(count, header.count);
  }
  throw corruptBundle(file, null, `the bundle is truncated: it ends after ${count} of the ${header.count} memories its header announces, without its trailer line {"end": true, …}`);
}
