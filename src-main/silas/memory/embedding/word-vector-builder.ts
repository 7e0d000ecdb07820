import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ErrorCode, SilasError } from '../../../../src-shared/errors.js';
import { BUILD_COMMAND } from './word-vector-table.js';

/*
 * Building the word-vector table when it is missing, off the runtime's event loop
 * (docs/architecture.md §1): scripts/build-word-vectors.js runs as a worker thread, parses the
 * wink package's 294 MB of JSON there (about 8 s and 1 GB, freed when the thread ends) and hands
 * back the table's bytes. The runtime then writes them beside the package, or, when the install
 * tree is read-only, uses them from memory.
 */

const SCRIPT = join('scripts', 'build-word-vectors.js');
/** The parse holds about 1.1 GB; V8's default for a thread may be lower inside Electron. */
const WORKER_HEAP_MB = 3072;

export interface TableBuildOptions {
  /** scripts/build-word-vectors.js; by default found above this module (sources, out/cli, out/main). */
  builderPath?: string;
  /** The wink JSON; the installed package's by default. */
  sourcePath?: string;
  signal?: AbortSignal;
}

/**
 * The build script of this checkout or install: the first `scripts/build-word-vectors.js` in a
 * folder above this module. Plain JavaScript, so the thread needs no TypeScript loader, and the
 * same from the sources, the bundled CLI and the desktop bundle.
 */
export function findBuilderScript(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth += 1) {
    const candidate = join(dir, SCRIPT);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new SilasError(ErrorCode.Internal, `${SCRIPT} is missing from this install, so the word-vector table of memory recall cannot be built; reinstall Silas (npm ci)`);
}

type WorkerMessage = { type: 'done'; bytes: ArrayBuffer } | { type: 'error'; message: string };

/** The table's bytes, built in a worker thread; the caller's signal stops the thread. */
export function buildTableInWorker(options: TableBuildOptions = {}): Promise<Uint8Array> {
  const script = options.builderPath ?? findBuilderScript();
  const failed = (why: string) => new SilasError(ErrorCode.Internal, `the word-vector table of memory recall could not be built: ${why}; run \`${BUILD_COMMAND}\` to see why`);
  return new Promise((resolve, reject) => {
    options.signal?.throwIfAborted();
    const worker = new Worker(script, {
      workerData: { task: 'silas-word-vectors', ...(options.sourcePath !== undefined ? { source: options.sourcePath } : {}) },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    let settled = false;
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      action();
    };
    const onAbort = () => settle(() => {
      void worker.terminate();
      reject(options.signal!.reason);
    });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      settle(() => (message.type === 'done' ? resolve(new Uint8Array(message.bytes)) : reject(failed(message.message))));
      void worker.terminate();
    });
    worker.on('error', (error) => settle(() => reject(failed(error.message))));
    worker.on('exit', (code) => settle(() => reject(failed(`the build thread ended (exit code ${code}) without a table`))));
  });
}

export type StoreResult = { stored: true } | { stored: false; reason: string };

/**
 * Writes the table through a temporary file and a rename (a reader never sees half of it). A
 * read-only install tree is not an error: the table is then used from memory, and built again at
 * the next start.
 */
export async function storeTable(path: string, bytes: Uint8Array): Promise<StoreResult> {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(temporary, bytes, { mode: 0o644 });
    await rename(temporary, path);
    return { stored: true };
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { stored: false, reason: `${path} could not be written (${code})` };
  }
}
