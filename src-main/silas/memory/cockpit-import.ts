import { createHash, type Hash } from 'node:crypto';
import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { MemoryImportBegun, MemoryImportResult } from '../../../src-shared/schemas/memory.js';
import { BundleTrailer } from './bundle-format.js';
import type { ImportMode, MemoryPortability } from './portability.js';
import { TransferSessions } from './transfer-sessions.js';

/*
 * The Memory page's "Import memory" (spec 002 §4.2.3, §6.5; docs/silas/memory-portability.md
 * "From the cockpit"): the person's bundle is uploaded in chunks (a WebSocket message is bounded)
 * into a private file under the home, then imported by `MemoryPortability.importBundle`, the CLI's
 * own: the whole bundle checked before anything is written, then one transaction, audited the same
 * way. The file is removed once the import ends, whatever its outcome, and when an upload is
 * abandoned; one left by a runtime that stopped mid-upload is removed at the next start.
 */

/**
 * The largest bundle the cockpit imports: the import holds the database's write lock and the
 * runtime's event loop for its whole length (about 4,000 memories a second), so it is the bound
 * `silas memory import` keeps while a control center runs (its LARGE_IMPORT_BYTES). A larger
 * bundle goes in through the CLI with the control center stopped.
 */
export const COCKPIT_IMPORT_MAX_BYTES = 5 * 2 ** 20;
/** Bytes per chunk: in base64, with the call's envelope, well inside WS_MAX_MESSAGE_BYTES (1 MiB). */
export const IMPORT_CHUNK_BYTES = 512 * 1024;
/** An upload not continued for this long is dropped and its file removed. */
const UPLOAD_IDLE_MS = 60_000;
const MAX_UPLOADS = 2;

export interface MemoryImportsDeps {
  portability: Pick<MemoryPortability, 'importBundle'>;
  /** A folder of the home only the runtime uses (created 0700); what it holds is removed at start. */
  dir: string;
  now: () => Date;
  idleMs?: number;
}

interface Upload {
  file: string;
  name: string;
  bytes: number;
  received: number;
  /** Of the bytes received: the file must still hold exactly them when it is imported. */
  hash: Hash;
  /** The last bytes received, where the trailer is: its SHA-256 binds what importBundle reads to what was sent. */
  tail: Buffer;
}

/** Enough of the end of the upload to hold its trailer line (about 120 bytes). */
const TAIL_BYTES = 4096;

export class MemoryImports {
  private readonly sessions: TransferSessions<Upload>;

  constructor(private readonly deps: MemoryImportsDeps) {
    this.sessions = new TransferSessions({
      what: 'upload',
      max: MAX_UPLOADS,
      idleMs: deps.idleMs ?? UPLOAD_IDLE_MS,
      now: () => deps.now().getTime(),
      close: (upload) => rmSync(upload.file, { force: true }),
    });
    this.removeLeftovers();
  }

  begin(args: { name: string; bytes: number }): MemoryImportBegun {
    if (args.bytes === 0) throw new SilasError(ErrorCode.InvalidArgs, `${args.name} is empty: a memory bundle has at least a header and a trailer line; pick a file that Export memory or \`silas memory export\` wrote (nothing was imported)`);
    if (args.bytes > COCKPIT_IMPORT_MAX_BYTES) {
      throw new SilasError(
        ErrorCode.InvalidArgs,
        `${args.name} is ${mb(args.bytes)} MB; the cockpit imports bundles of at most ${mb(COCKPIT_IMPORT_MAX_BYTES)} MB, because an import holds the database while it runs and the control center would stop answering. Stop the control center and run \`silas memory import ${args.name}\` (add --mode replace to replace), which has no such limit then; nothing was imported`,
      );
    }
    mkdirSync(this.deps.dir, { recursive: true, mode: 0o700 });
    const upload: Upload = { file: '', name: args.name, bytes: args.bytes, received: 0, hash: createHash('sha256'), tail: Buffer.alloc(0) };
    const uploadId = this.sessions.add(upload);
    upload.file = join(this.deps.dir, `${uploadId}.jsonl`);
    try {
      // Private from the start (0600), and never an existing file.
      closeSync(openSync(upload.file, 'wx', 0o600));
    } catch (error) {
      this.sessions.end(uploadId);
      throw new SilasError(ErrorCode.Permission, `cannot write the upload into ${this.deps.dir}: ${(error as Error).message}; check the data home's permissions (nothing was imported)`);
    }
    return { uploadId, chunkBytes: IMPORT_CHUNK_BYTES, maxBytes: COCKPIT_IMPORT_MAX_BYTES };
  }

  chunk(args: { uploadId: string; offset: number; data: string }): { received: number } {
    const upload = this.sessions.take(args.uploadId);
    if (args.offset !== upload.received) {
      throw new SilasError(ErrorCode.Conflict, `offset: expected ${upload.received} (the bytes received so far), got ${args.offset}; send the chunks in order, each once`);
    }
    const data = Buffer.from(args.data, 'base64');
    if (data.length > IMPORT_CHUNK_BYTES || upload.received + data.length > upload.bytes) {
      this.sessions.end(args.uploadId);
      throw new SilasError(
        ErrorCode.InvalidArgs,
        data.length > IMPORT_CHUNK_BYTES
          ? `data: a chunk has at most ${IMPORT_CHUNK_BYTES} bytes, this one ${data.length}; the upload was dropped, start it again`
          : `data: the upload grew past the ${upload.bytes} bytes importBegin announced; the upload was dropped, start it again (nothing was imported)`,
      );
    }
    appendFileSync(upload.file, data);
    upload.hash.update(data);
    upload.tail = Buffer.concat([upload.tail, data]).subarray(-TAIL_BYTES);
    upload.received += data.length;
    return { received: upload.received };
  }

  /** Imports the uploaded bundle, whole or not at all; the upload ends either way. */
  commit(args: { uploadId: string; mode: ImportMode }): MemoryImportResult {
    const upload = this.sessions.take(args.uploadId);
    try {
      if (upload.received !== upload.bytes) {
        throw new SilasError(ErrorCode.InvalidArgs, `${upload.name}: only ${upload.received} of its ${upload.bytes} bytes arrived; upload it again (nothing was imported)`);
      }
      // The file lay in the home while the chunks came; what is imported is what the person sent
      // (importBundle then checks the file does not change between its own two reads).
      if (createHash('sha256').update(readFileSync(upload.file)).digest('hex') !== upload.hash.digest('hex')) {
        throw new SilasError(ErrorCode.Conflict, `${upload.name}: the uploaded copy was changed on disk by another program while it was uploaded; upload it again (nothing was imported)`);
      }
      const summary = this.importing(upload, args.mode);
      const { header } = summary;
      return { mode: summary.mode, count: summary.count, inserted: summary.inserted, updated: summary.updated, unchanged: summary.unchanged, removed: summary.removed, sha256: summary.sha256, scope: header.scope, includeRaw: header.include_raw, exportedAt: header.exported_at };
    } finally {
      this.sessions.end(args.uploadId);
    }
  }

  abort(uploadId: string): { aborted: true } {
    this.sessions.end(uploadId);
    return { aborted: true };
  }

  /** Drops every upload in progress and its file (the runtime stops). */
  close(): void {
    this.sessions.endAll();
  }

  /** The CLI's import of the uploaded file; its messages name the person's file, not the runtime's copy. */
  private importing(upload: Upload, mode: ImportMode) {
    try {
      // The file's own check above leaves a moment before importBundle opens it; the trailer's SHA-256,
      // taken from the bytes received, closes it (a bundle without one is refused by its first read).
      return this.deps.portability.importBundle(upload.file, mode, { expectedSha256: trailerSha256(upload.tail) });
    } catch (error) {
      if (!(error instanceof SilasError) || !error.message.includes(upload.file)) throw error;
      throw new SilasError(error.code, error.message.split(upload.file).join(upload.name), { cause: error });
    }
  }

  private removeLeftovers(): void {
    let names: string[];
    try {
      names = readdirSync(this.deps.dir);
    } catch {
      return; // no upload was ever made in this home
    }
    for (const name of names) if (name.endsWith('.jsonl')) rmSync(join(this.deps.dir, name), { force: true });
  }
}

/** The SHA-256 in the upload's trailer line, or one no bundle carries when it has none. */
function trailerSha256(tail: Buffer): string {
  const last = tail.toString('utf8').trimEnd().split('\n').at(-1) ?? '';
  try {
    const trailer = BundleTrailer.safeParse(JSON.parse(last));
    if (trailer.success) return trailer.data.sha256;
  } catch {
    // not a trailer
  }
  return 'none';
}

function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
