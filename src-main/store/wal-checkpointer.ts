import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { sqliteConnection, type SqliteDatabase } from './transaction.js';

/**
 * Checkpoints of the runtime's write-ahead log off its event loop (docs/architecture.md "Process
 * model": no turn over 50 ms). SQLite copies the WAL into the database file on the commit that
 * takes it past 1,000 pages, on the committing connection: in the runtime that was its event loop,
 * 60 ms and more once recall by meaning wrote its vectors. The runtime's connection stops doing
 * it (`wal_autocheckpoint = 0`) while a worker thread with its own connection does it, PASSIVE,
 * every `intervalMs`. If the worker cannot start or stops, the connection checkpoints itself
 * again, as before: the log never grows without bound.
 */

const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

export interface WalCheckpointerOptions {
  intervalMs?: number;
  /**
   * The worker starts this long after `start()`: a runtime that lives a few seconds (a test, a
   * start that fails) never writes enough to need it and does not pay for a thread.
   */
  delayMs?: number;
  /** Where the worker's code is; tests and the bundled CLI may point elsewhere. */
  workerUrl?: URL;
  /** A checkpoint was made (tests), or the worker stopped and the connection checkpoints itself (the reason). */
  onCheckpoint?: (counts: { log: number; checkpointed: number }) => void;
  onFallback?: (reason: string) => void;
}

/** The worker's code beside this module (`import.meta` through a variable: scripts/build-cli.js rewrites the literal). */
function defaultWorkerUrl(): URL {
  const meta = import.meta;
  return new URL(meta.url.endsWith('.ts') ? './wal-checkpoint-worker.ts' : './wal-checkpoint-worker.js', meta.url);
}

function startWorker(url: URL, job: { file: string; intervalMs: number }): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData: job });
  // Hooks registered on the runtime thread do not reach a worker on Node 20 (see audit/chain-verifier.ts).
  const api = pathToFileURL(createRequire(url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  return new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true, workerData: job });
}

export class WalCheckpointer {
  private worker: Worker | null = null;
  private stopping = false;
  private delay: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly file: string,
    private readonly options: WalCheckpointerOptions = {},
  ) {}

  /** Hands checkpoints to the worker after `delayMs`; falls back to the connection's own if the worker's code is missing. */
  start(): void {
    const delayMs = this.options.delayMs ?? 3_000;
    if (delayMs <= 0) return this.startNow();
    this.delay = setTimeout(() => {
      this.delay = null;
      if (!this.stopping) this.startNow();
    }, delayMs);
    this.delay.unref();
  }

  private startNow(): void {
    const url = this.options.workerUrl ?? defaultWorkerUrl();
    if (!existsSync(fileURLToPath(url))) return this.fallBack(`the checkpoint worker ${fileURLToPath(url)} is missing from this build`);
    const worker = startWorker(url, { file: this.file, intervalMs: this.options.intervalMs ?? 1_000 });
    this.worker = worker;
    sqliteConnection(this.database).pragma('wal_autocheckpoint = 0');
    worker.on('message', (message: { type: string; log?: number; checkpointed?: number; reason?: string }) => {
      if (message.type === 'checkpointed') this.options.onCheckpoint?.({ log: message.log ?? 0, checkpointed: message.checkpointed ?? 0 });
      if (message.type === 'failed') this.fallBack(message.reason ?? 'the checkpoint worker failed');
    });
    worker.on('error', (error) => this.fallBack(error.message));
    worker.on('exit', (code) => {
      if (!this.stopping && this.worker === worker) this.fallBack(`the checkpoint worker exited (code ${code})`);
    });
    worker.unref();
  }

  /** Stops the worker; the connection checkpoints itself again (its close checkpoints the rest). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.delay) clearTimeout(this.delay);
    const worker = this.worker;
    this.worker = null;
    this.restore();
    if (!worker) return;
    // Referenced again while it stops: the runtime's shutdown must not end with the loop empty mid-way.
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
    await worker.terminate();
  }

  private fallBack(reason: string): void {
    this.worker = null;
    this.restore();
    if (!this.stopping) this.options.onFallback?.(reason);
  }

  private restore(): void {
    try {
      if (sqliteConnection(this.database).open) sqliteConnection(this.database).pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
    } catch {
      // The connection is closing: its close checkpoints the log.
    }
  }
}
