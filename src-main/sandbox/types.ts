import type { SandboxConfig, SandboxConfigInput } from '../../src-shared/silas/execution.js';
import type { RunLimitReport } from './run-limits.js';

/** One command to run inside a sandbox. */
export interface SandboxRunRequest {
  /** argv[0] is resolved through the PATH given in `env` (or the libc default path when absent). */
  argv: readonly string[];
  /** Added on top of `SandboxConfig.env` for this run only; nothing else reaches the process except
   *  PWD, which bubblewrap sets to the work dir. */
  env?: Readonly<Record<string, string>>;
  /** Written to the process's stdin, which is then closed; stdin is /dev/null when absent. */
  stdin?: string | Uint8Array;
  /** Wall-clock limit; the whole sandbox (every process in it) is killed when it passes. */
  timeoutMs: number;
  /** Cap per stream (stdout and stderr each); the rest is read and discarded. */
  maxOutputBytes: number;
  /** Aborting kills the whole sandbox at once (the run was stopped: interrupted, out of budget). */
  signal?: AbortSignal;
}

export interface SandboxRunResult {
  /** The command's exit status (128+N when it died of signal N); null when killed at the timeout. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Total bytes each stream produced, including the discarded part. */
  stdoutBytes: number;
  stderrBytes: number;
  timedOut: boolean;
  durationMs: number;
  /** The run's aggregate limits as enforced, and whether the run hit them. */
  limits: RunLimitReport;
}

/** What this sandbox actually enforces, so callers and audit records can say so. */
export interface SandboxEnforcement {
  /** Always true for a created sandbox: creation fails closed otherwise. */
  filesystem: boolean;
  /** The process has its own network namespace (no interfaces but a down loopback). */
  networkIsolated: boolean;
  /** RLIMIT_AS set from max_memory_mb (best-effort: limits address space, not resident memory). */
  memoryLimit: boolean;
  /** RLIMIT_CPU set from max_cpu_seconds (per process; children get their own budget). */
  cpuLimit: boolean;
  /** max_processes enforced for the whole run (a cgroup's pids.max). */
  processLimit: boolean;
  /** max_memory_mb enforced for all the run's processes together (a cgroup memory limit). */
  runMemoryLimit: boolean;
}

export interface SandboxCreateOptions {
  /** The verification runner mounts the task work dir read-only; execution mounts it read-write. */
  workDirAccess?: 'read-write' | 'read-only';
  /** Create work_dir when missing (default true for read-write, false for read-only). */
  createWorkDir?: boolean;
  /**
   * Mount an empty private tmpfs at FRESH_HOME (`sandbox.homeDir`), for runs whose HOME must hold
   * nothing the agent wrote (verification checks): tools read configuration and code from $HOME.
   */
  freshHome?: boolean;
}

/** §4.7 Sandbox: one isolated runtime instance built from a SandboxConfig. */
export interface Sandbox {
  readonly id: string;
  /** Canonical host path of the work directory; it is mounted at the same path inside. */
  readonly workDir: string;
  /** The empty private HOME of `freshHome` sandboxes, else null. */
  readonly homeDir: string | null;
  readonly config: SandboxConfig;
  readonly enforcement: SandboxEnforcement;
  run(request: SandboxRunRequest): Promise<SandboxRunResult>;
}

/** §4.7 SandboxManager. */
export interface SandboxManager {
  create(config: SandboxConfigInput, options?: SandboxCreateOptions): Promise<Sandbox>;
  /** Kills whatever still runs in the sandbox and forgets it. The work directory is left in place. */
  destroy(sandboxId: string): Promise<void>;
}

/** Result of probing the host once for bubblewrap. */
export interface SandboxAvailability {
  available: boolean;
  bwrapPath: string;
  /** Why isolation is unavailable, in words a person can act on. */
  reason: string | null;
  /** Path of prlimit when resource limits can be applied, else null. */
  prlimitPath: string | null;
}
