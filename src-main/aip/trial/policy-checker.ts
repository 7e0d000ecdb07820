import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PolicyValidateResult } from '../../../src-shared/schemas/policy-editor.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { MAX_POLICY_BYTES } from '../policy/load.js';
import { validatePolicyDraft } from './validate-draft.js';

/**
 * What the runtime thread sends the worker, and what comes back: a draft to validate, or a policy
 * file's text to judge for the Policies listing (does it load, who signed it, its hash), with the
 * keyring's owner key as raw public keys by fingerprint.
 */
export type PolicyCheckRequest = { id: number; text: string; judge?: undefined } | { id: number; text: string; judge: { path: string; trustedKeys: [string, string][] } };
/** What loading a policy file's text says of it, as the Policies listing shows it. */
export interface JudgedPolicyText {
  loads: boolean;
  signedBy: string | null;
  signatureInvalid: boolean;
  hash: string | null;
}
export type PolicyCheckReply = { id: number; result: PolicyValidateResult } | { id: number; judged: JudgedPolicyText } | { id: number; error: string };

export interface PolicyCheckerOptions {
  /** Where the worker's code is; tests and the bundled CLI may point elsewhere. */
  workerUrl?: URL;
  /** The thread stops after this long without a request (it starts again on the next). */
  idleMs?: number;
  /** A check that takes longer is abandoned and the thread restarted. */
  timeoutMs?: number;
  /** Checks waiting at once; beyond it a check is refused (the editor sends the latest draft again). */
  maxWaiting?: number;
}

interface Waiting {
  resolve(result: never): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The worker's code beside this module. `import.meta` is read through a variable on purpose, as
 * in audit/chain-verifier.ts: scripts/build-cli.js rewrites the text "import.meta" + ".url" to the
 * source file's URL, whereas the bundle must find its bundled worker beside its own chunk.
 */
function defaultPolicyWorkerUrl(): URL {
  const meta = import.meta;
  return new URL(meta.url.endsWith('.ts') ? './policy-check-worker.ts' : './policy-check-worker.js', meta.url);
}

function startWorker(url: URL): Worker {
  if (!existsSync(fileURLToPath(url))) {
    throw new SilasError(ErrorCode.Internal, `the policy checker's worker ${fileURLToPath(url)} is missing from this build; rebuild (\`npm run build:cli\`, \`npm run build:desktop\`)`);
  }
  if (!url.pathname.endsWith('.ts')) return new Worker(url);
  // TypeScript sources (tests, `tsx`): the thread registers tsx itself, as the chain verifier's does.
  const api = pathToFileURL(createRequire(url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  return new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, { eval: true });
}

/**
 * Policy drafts checked off the runtime's event loop (DESIGN invariant 11; docs/policy-editor.md,
 * Limits): one worker thread, started on demand and stopped when idle, checks drafts in order.
 * A draft over the cap (MAX_POLICY_BYTES) is refused on the loop by its size alone, which costs
 * one byte count, and never reaches the parser.
 */
export class PolicyChecker {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private readonly idleMs: number;
  private readonly timeoutMs: number;
  private readonly maxWaiting: number;

  constructor(private readonly options: PolicyCheckerOptions = {}) {
    this.idleMs = options.idleMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 20_000;
    this.maxWaiting = options.maxWaiting ?? 8;
  }

  validate(text: string): Promise<PolicyValidateResult> {
    if (this.closed) return Promise.reject(new SilasError(ErrorCode.Unavailable, 'the runtime is shutting down; the draft was not checked'));
    if (Buffer.byteLength(text, 'utf8') > MAX_POLICY_BYTES) return Promise.resolve(validatePolicyDraft(text));
    if (this.waiting.size >= this.maxWaiting) {
      return Promise.reject(new SilasError(ErrorCode.RateLimited, `${this.waiting.size} drafts are already being checked; wait for their results and check again`));
    }
    return this.send<PolicyValidateResult>((id) => ({ id, text }));
  }

  /**
   * Loads a policy file's text in the thread, for the Policies listing (docs/policy-editor.md,
   * Limits): a large policy planted in HOME/policies is parsed there, never on the loop.
   */
  judge(path: string, text: string, trustedKeys: ReadonlyMap<string, Uint8Array>): Promise<JudgedPolicyText> {
    if (this.closed) return Promise.reject(new SilasError(ErrorCode.Unavailable, 'the runtime is shutting down; the policy was not read'));
    const keys: [string, string][] = [...trustedKeys].map(([fingerprint, key]) => [fingerprint, Buffer.from(key).toString('base64')]);
    return this.send<JudgedPolicyText>((id) => ({ id, text, judge: { path, trustedKeys: keys } }));
  }

  private send<T>(request: (id: number) => PolicyCheckRequest): Promise<T> {
    let worker: Worker;
    try {
      worker = this.ensureWorker();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.stop(worker, `checking a policy took longer than ${this.timeoutMs} ms; shorten it and check again`), this.timeoutMs);
      timer.unref();
      this.waiting.set(id, { resolve: resolve as (result: never) => void, reject, timer });
      worker.postMessage(request(id));
    });
  }

  /** Stops the thread and refuses what waits (runtime shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (worker) {
      this.stop(worker, 'the runtime is shutting down; the draft was not checked');
      await worker.terminate().catch(() => undefined);
    }
  }

  private ensureWorker(): Worker {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.worker) return this.worker;
    const worker = startWorker(this.options.workerUrl ?? defaultPolicyWorkerUrl());
    // The thread never keeps a runtime (or a test) alive on its own.
    worker.unref();
    worker.on('message', (reply: PolicyCheckReply) => this.settle(worker, reply));
    worker.on('error', (error) => this.stop(worker, `the policy checker thread failed: ${error.message}`));
    worker.on('exit', (code) => this.stop(worker, `the policy checker thread exited (code ${code}); check the draft again`));
    this.worker = worker;
    return worker;
  }

  private settle(worker: Worker, reply: PolicyCheckReply): void {
    if (this.worker !== worker) return;
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    clearTimeout(waiting.timer);
    if ('result' in reply) waiting.resolve(reply.result as never);
    else if ('judged' in reply) waiting.resolve(reply.judged as never);
    else waiting.reject(new SilasError(ErrorCode.Internal, `checking the draft failed: ${reply.error}`));
    if (this.waiting.size === 0 && !this.closed) {
      this.idleTimer = setTimeout(() => this.worker === worker && this.waiting.size === 0 && this.stop(worker, 'idle'), this.idleMs);
      this.idleTimer.unref();
    }
  }

  /** Ends this thread: whatever waits on it is refused with `reason`; the next check starts a new one. */
  private stop(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    for (const [id, waiting] of this.waiting) {
      clearTimeout(waiting.timer);
      waiting.reject(new SilasError(ErrorCode.Unavailable, reason));
      this.waiting.delete(id);
    }
    void worker.terminate().catch(() => undefined);
  }
}
