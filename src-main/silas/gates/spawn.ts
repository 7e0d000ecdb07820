import { spawn } from 'node:child_process';

/**
 * How a script gate's process is started. The default spawns directly (no shell) with exactly the
 * environment given; an executor that wants gate scripts inside its sandbox injects its own.
 */

export interface ScriptRunRequest {
  /** Program and arguments, passed to the OS as a list; never joined into a shell string. */
  argv: readonly string[];
  /** The complete environment of the child; nothing is inherited from this process. */
  env: Readonly<Record<string, string>>;
  cwd: string;
  timeoutMs: number;
  /** Combined stdout + stderr bytes after which the child is killed. */
  maxOutputBytes: number;
}

export interface ScriptRunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  outputExceeded: boolean;
  /** Set when the process could not be started (e.g. ENOENT). */
  spawnError: string | null;
}

export type ScriptSpawner = (request: ScriptRunRequest) => Promise<ScriptRunResult>;

export const spawnScript: ScriptSpawner = (request) =>
  new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    let timedOut = false;
    let outputExceeded = false;
    let settled = false;
    const groupKill = process.platform !== 'win32';

    const child = spawn(request.argv[0]!, request.argv.slice(1), {
      cwd: request.cwd,
      env: { ...request.env },
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a timeout also kills whatever the script started.
      detached: groupKill,
      windowsHide: true,
    });

    const kill = (): void => {
      try {
        if (groupKill && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, request.timeoutMs);

    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      if (outputExceeded) return;
      bytes += chunk.length;
      if (bytes > request.maxOutputBytes) {
        outputExceeded = true;
        kill();
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));

    const finish = (exitCode: number | null, signal: string | null, spawnError: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        timedOut,
        outputExceeded,
        spawnError,
      });
    };
    child.on('error', (error: NodeJS.ErrnoException) => finish(null, null, error.code ?? error.message));
    child.on('close', (code, signal) => finish(code, signal, null));
  });
