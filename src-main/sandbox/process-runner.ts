import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

/** After the timeout, SIGTERM goes to the process group; SIGKILL follows after this grace. */
const KILL_GRACE_MS = 250;

export interface ProcessRunOptions {
  env: Readonly<Record<string, string>>;
  cwd?: string;
  stdin?: string | Uint8Array;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Open fd 3 as a pipe and collect what the process writes to it (bwrap's --json-status-fd). */
  statusFd?: boolean;
  /** Aborting kills the process group at once. */
  signal?: AbortSignal;
}

export interface ProcessRunOutcome {
  /** Exit code of the spawned process itself (bwrap, for a sandbox); null when it died of a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  stdoutBytes: number;
  stderrBytes: number;
  status: string;
  timedOut: boolean;
  durationMs: number;
}

export interface RunningProcess {
  done: Promise<ProcessRunOutcome>;
  /** SIGKILL to the whole process group now (used when a sandbox is destroyed mid-run). */
  kill(): void;
}

/** Keeps the first `cap` bytes of a stream and counts the rest while draining it. */
function capture(stream: Readable | null, cap: number): { chunks: Buffer[]; kept: () => number; total: () => number } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  stream?.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (kept >= cap) return;
    const slice = chunk.length > cap - kept ? chunk.subarray(0, cap - kept) : chunk;
    chunks.push(slice);
    kept += slice.length;
  });
  return { chunks, kept: () => kept, total: () => total };
}

/**
 * Spawns `file` with an argument vector (never through a shell) as the leader of a new process
 * group, so that a timeout can signal the whole group at once. The environment is exactly
 * `options.env`: nothing of this process's environment is inherited.
 */
export function startProcess(file: string, args: readonly string[], options: ProcessRunOptions): RunningProcess {
  const started = performance.now();
  let killNow: () => void = () => undefined;
  const done = new Promise<ProcessRunOutcome>((resolvePromise, reject) => {
    const child = spawn(file, args, {
      env: { ...options.env },
      cwd: options.cwd,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', ...(options.statusFd ? (['pipe'] as const) : [])],
    });
    const out = capture(child.stdout, options.maxOutputBytes);
    const err = capture(child.stderr, options.maxOutputBytes);
    const statusChunks: Buffer[] = [];
    if (options.statusFd) (child.stdio[3] as Readable | null)?.on('data', (chunk: Buffer) => statusChunks.push(chunk));

    let timedOut = false;
    // The group outlives its leader while any member holds on, so signal until the pipes close.
    let closed = false;
    let killTimer: NodeJS.Timeout | undefined;
    const signalGroup = (signal: NodeJS.Signals): void => {
      if (closed || child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
    }, options.timeoutMs);
    killNow = () => signalGroup('SIGKILL');
    const onAbort = () => signalGroup('SIGKILL');
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    if (options.stdin !== undefined && child.stdin) {
      // A process that exits without reading its input must not crash the runtime with EPIPE.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.stdin);
    }

    child.on('error', (error) => {
      closed = true;
      options.signal?.removeEventListener('abort', onAbort);
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      closed = true;
      options.signal?.removeEventListener('abort', onAbort);
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      resolvePromise({
        code,
        signal,
        stdout: Buffer.concat(out.chunks),
        stderr: Buffer.concat(err.chunks),
        stdoutBytes: out.total(),
        stderrBytes: err.total(),
        status: Buffer.concat(statusChunks).toString('utf8'),
        timedOut,
        durationMs: performance.now() - started,
      });
    });
  });
  return { done, kill: () => killNow() };
}

export function runProcess(file: string, args: readonly string[], options: ProcessRunOptions): Promise<ProcessRunOutcome> {
  return startProcess(file, args, options).done;
}
