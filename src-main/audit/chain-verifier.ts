import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChainVerified, ChainVerifyStatus, VerifyMode, VerifyRun } from '../../src-shared/schemas/audit.js';
import { ErrorCode, SilasError, type ErrorInfo } from '../../src-shared/errors.js';
import { KeyringAnchorStore, LedgerKeyVault, parseLedgerKeyRecord } from '../keys/ledger-key.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { SecretStore } from '../keys/secret-store.js';
import type { AuditRepository } from '../store/repositories/audit-repository.js';
import { keysMissing, type LedgerKeys } from './ledger-keys.js';
import { captureLedgerState, type LedgerState } from './verify.js';
import { planRun, type VerifyJob, type VerifyKeyMaterial, type VerifyWorkerMessage } from './verify-worker-job.js';

/** The keyring-held keys, for the runtime thread's capture, and their material for the worker. */
export interface VerifierKeys {
  keys: LedgerKeys;
  material: VerifyKeyMaterial;
}

export interface ChainVerifierDeps {
  dbFile: string;
  /** The runtime's own repository: only `captureLedgerState` runs on its thread. */
  repository: AuditRepository;
  /** Read at every run, so a keyring unlocked later is picked up; throws when it cannot be read. */
  keys(): VerifierKeys;
  onProgress?(run: VerifyRun): void;
  /** After every run: finished, failed or cancelled. */
  onFinished?(status: ChainVerifyStatus): void;
  now?: () => Date;
  /** Entries between two progress reports. */
  progressEvery?: number;
  /** Where the worker's code is; tests and the bundled CLI may point elsewhere. */
  workerUrl?: URL;
}

interface Running {
  mode: VerifyMode;
  run: VerifyRun;
  worker: Worker;
  done: Promise<ChainVerified>;
  cancel(): void;
}

/**
 * The worker's code beside this module. `import.meta` is read through a variable on purpose:
 * scripts/build-cli.js rewrites the text "import.meta" + ".url" to the source file's URL, whereas
 * the bundle must find the bundled worker (out/cli/verify-worker.js) beside its own chunk.
 */
function defaultWorkerUrl(): URL {
  const meta = import.meta;
  return new URL(meta.url.endsWith('.ts') ? './verify-worker.ts' : './verify-worker.js', meta.url);
}

/** Starts the worker; TypeScript sources (tests, `tsx`, a stale CLI build) load through tsx inside the thread. */
function startWorker(url: URL, job: VerifyJob): Worker {
  if (!existsSync(fileURLToPath(url))) {
    throw new SilasError(ErrorCode.Internal, `the chain verifier's worker ${fileURLToPath(url)} is missing from this build; rebuild (\`npm run build:cli\`, \`npm run build:desktop\`), or run \`silas audit verify\``);
  }
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData: job });
  // Hooks registered on the runtime thread do not reach a worker on Node 20, so the thread
  // registers tsx itself, through its ES module API (`require` resolves the CommonJS twin).
  const api = pathToFileURL(createRequire(url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const boot = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { eval: true, workerData: job });
}

/**
 * Chain verification off the runtime's event loop, so no turn of it takes more than ~50 ms
 * (docs/architecture.md §1, docs/ledger.md "Verifying without blocking the runtime, and only what
 * is new"): one run at a time in a worker thread with its own read-only connection, with progress,
 * cancel, and the last result kept so a cockpit sees it at once. `new` continues from the last
 * verified entry (the keyring-anchored checkpoint before the first run); `full` checks everything
 * from genesis. A run only reads, and the last result is replaced only by a finished run, so a
 * cancel leaves nothing half-written.
 */
export class ChainVerifier {
  private last: ChainVerified | null = null;
  private error: ErrorInfo | null = null;
  private running: Running | null = null;
  private fullAfter: Promise<ChainVerified> | null = null;
  private closed = false;
  private readonly now: () => Date;

  constructor(private readonly deps: ChainVerifierDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  status(): ChainVerifyStatus {
    return { last: this.last, running: this.running ? { ...this.running.run } : null, error: this.error };
  }

  /**
   * Starts a run, or joins the one in progress: a `new` request joins any run, a `full` request
   * joins a full run and otherwise runs once the current one ends.
   */
  verify(mode: VerifyMode = 'new'): Promise<ChainVerified> {
    if (this.closed) return Promise.reject(new SilasError(ErrorCode.Unavailable, 'the runtime is shutting down; verify with `silas audit verify` instead'));
    const current = this.running;
    if (current && (mode === 'new' || current.mode === 'full')) return current.done;
    if (current) {
      this.fullAfter ??= current.done
        .catch(() => undefined)
        .then(() => {
          this.fullAfter = null;
          return this.verify('full');
        });
      return this.fullAfter;
    }
    return this.start(mode);
  }

  /** Stops the run in progress; the last result stays. False when nothing was running. */
  cancel(): boolean {
    const current = this.running;
    if (!current) return false;
    current.cancel();
    return true;
  }

  /** Stops any run and refuses new ones (runtime shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    const current = this.running;
    if (current) {
      current.cancel();
      await current.done.catch(() => undefined);
    }
  }

  private start(requested: VerifyMode): Promise<ChainVerified> {
    let state: LedgerState;
    let material: VerifyKeyMaterial;
    try {
      const { keys, material: handed } = this.deps.keys();
      // The anchor and the rows must describe one moment: read under the write lock, here (cheap).
      state = captureLedgerState(this.deps.repository, keys);
      material = handed;
    } catch (error) {
      this.error = toInfo(error);
      this.deps.onFinished?.(this.status());
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    // Trust a result only while it stands: after a break, only a full run may say "intact" again.
    const from = this.last?.valid ? this.last.verifiedUpTo : null;
    const mode: VerifyMode = requested === 'new' && this.last && !this.last.valid ? 'full' : requested;
    const plan = planRun(state, mode, from);
    const job: VerifyJob = { dbFile: this.deps.dbFile, mode: plan.mode, from, state, keys: material, progressEvery: this.deps.progressEvery ?? 10_000 };
    const run: VerifyRun = { mode: plan.mode, fromIndex: plan.start?.index ?? 0, checked: 0, total: plan.total, startedAt: this.now().toISOString() };
    let worker: Worker;
    try {
      worker = startWorker(this.deps.workerUrl ?? defaultWorkerUrl(), job);
    } catch (error) {
      this.error = toInfo(error);
      this.deps.onFinished?.(this.status());
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    let settle: { resolve(v: ChainVerified): void; reject(e: Error): void } | null = null;
    const done = new Promise<ChainVerified>((resolve, reject) => (settle = { resolve, reject }));
    const finish = (outcome: { result: ChainVerified } | { error: ErrorInfo }) => {
      if (!settle || this.running?.worker !== worker) return;
      const { resolve, reject } = settle;
      settle = null;
      this.running = null;
      if ('result' in outcome) {
        this.last = outcome.result;
        this.error = null;
      } else {
        this.error = outcome.error;
      }
      void worker.terminate();
      this.deps.onFinished?.(this.status());
      if ('result' in outcome) resolve(outcome.result);
      else reject(new SilasError(outcome.error.code, outcome.error.message));
    };
    worker.on('message', (message: VerifyWorkerMessage) => {
      if (message.type === 'progress') {
        run.checked = message.checked;
        run.total = message.total;
        this.deps.onProgress?.({ ...run });
      } else if (message.type === 'done') {
        finish({ result: { ...message.result, verifiedAt: this.now().toISOString() } });
      } else {
        finish({ error: { code: message.code, message: `chain verification failed: ${message.message}` } });
      }
    });
    worker.on('error', (error) => finish({ error: { code: ErrorCode.Internal, message: `the chain verifier thread failed: ${error.message}` } }));
    worker.on('exit', (code) => finish({ error: { code: ErrorCode.Internal, message: `the chain verifier thread exited (code ${code}) before reporting a result` } }));
    this.running = {
      mode: plan.mode,
      run,
      worker,
      done,
      cancel: () => finish({ error: { code: ErrorCode.Unavailable, message: 'the verification was cancelled; the last result still stands. Verify again to check the chain' } }),
    };
    return done;
  }
}

function toInfo(error: unknown): ErrorInfo {
  return error instanceof SilasError ? error.toInfo() : { code: ErrorCode.Internal, message: error instanceof Error ? error.message : String(error) };
}

/**
 * The runtime's verifier keys, read from the OS keyring at every run: the ledger key (its raw
 * keyring record goes to the worker in memory) and the owner key's public half.
 */
export function keyringVerifierKeys(store: SecretStore, home: string, signer: OwnerSigner | null): () => VerifierKeys {
  const vault = new LedgerKeyVault(store, home);
  return () => {
    // One keyring read: the same record is parsed here and in the worker.
    const record = vault.loadRecord();
    if (record === null || !signer) throw keysMissing('verify the audit ledger', `holds no ledger key or owner key for this home (${vault.description})`);
    const { chain, keyedFrom } = parseLedgerKeyRecord(record, vault.accounts.key);
    return {
      keys: { chain, keyedFrom, anchors: new KeyringAnchorStore(store, vault.accounts.anchor), signer },
      material: { ledgerKeyRecord: record, ownerFingerprint: signer.fingerprint, ownerPublicKey: new Uint8Array(signer.publicKey) },
    };
  };
}
