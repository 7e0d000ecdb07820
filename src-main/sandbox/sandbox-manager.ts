import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { SilasError } from '../../src-shared/errors.js';
import { SandboxConfig, SandboxEnv, SandboxErrorCode, type SandboxConfigInput } from '../../src-shared/silas/execution.js';
import { DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH, INSTALL_HINT, probeBubblewrap } from './bubblewrap.js';
import { buildBwrapArgs, discoverSystemEntries, presentEtcEntries, type Mount, type SystemEntry } from './bwrap-args.js';
import { isWithin, resolveSandboxPath } from './paths.js';
import { startProcess, type RunningProcess } from './process-runner.js';
import { detectRunLimiter, inCgroup, UNLIMITED_REPORT, type RunCgroup, type RunLimitReport, type RunLimiter } from './run-limits.js';
import type {
  Sandbox,
  SandboxAvailability,
  SandboxCreateOptions,
  SandboxEnforcement,
  SandboxManager,
  SandboxRunRequest,
  SandboxRunResult,
} from './types.js';

/** Where a `freshHome` sandbox's empty HOME is mounted: a path no host directory is mounted at. */
export const FRESH_HOME = '/run/silas-home';

export interface BubblewrapSandboxManagerOptions {
  /** Relative paths in a SandboxConfig (the default work_dir is `./data/sandbox/work`) resolve here. */
  baseDir: string;
  /** Injectable so that a test can prove the fail-closed path with a missing binary. */
  bwrapPath?: string;
  prlimitPath?: string;
  /** Where aggregate run limits come from; default: the cgroups this process may use (probed once). */
  runLimiter?: RunLimiter;
  newId?: () => string;
}

/** Host shell that puts itself into the run's cgroups, then becomes bubblewrap (same pid, same fds). */

function describeIssues(error: z.ZodError, prefix: string): string {
  return error.issues.map((issue) => `${[prefix, ...issue.path.map(String)].filter(Boolean).join('.')}: ${issue.message}`).join('; ');
}

/**
 * SandboxManager on bubblewrap (the spec's "subprocess backend" with OS-level isolation, §9.1).
 * Availability is probed once per manager; every create() fails closed when it is missing.
 */
export class BubblewrapSandboxManager implements SandboxManager {
  private readonly bwrapPath: string;
  private readonly prlimitPath: string;
  private readonly newId: () => string;
  private readonly sandboxes = new Map<string, BwrapSandbox>();
  private probe: Promise<SandboxAvailability> | null = null;
  private system: SystemEntry[] | null = null;
  private limiter: RunLimiter | null = null;

  constructor(private readonly options: BubblewrapSandboxManagerOptions) {
    this.bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP_PATH;
    this.prlimitPath = options.prlimitPath ?? DEFAULT_PRLIMIT_PATH;
    this.newId = options.newId ?? (() => `sbx_${randomUUID()}`);
  }

  availability(): Promise<SandboxAvailability> {
    this.probe ??= probeBubblewrap(this.bwrapPath, this.prlimitPath);
    return this.probe;
  }

  async create(input: SandboxConfigInput, options: SandboxCreateOptions = {}): Promise<Sandbox> {
    const parsed = SandboxConfig.safeParse(input);
    if (!parsed.success) {
      throw new SilasError(SandboxErrorCode.ConfigInvalid, `Invalid sandbox config: ${describeIssues(parsed.error, 'sandbox_config')}`);
    }
    const config = parsed.data;
    if (config.backend === 'docker') {
      throw new SilasError(SandboxErrorCode.BackendUnavailable, 'sandbox_config.backend: "docker" is not available in this build; use "subprocess" (bubblewrap) or leave it unset');
    }
    const availability = await this.availability();
    if (!availability.available) {
      // Without namespaces neither the network nor the filesystem can be confined: refuse, never degrade.
      if (!config.network_access) {
        throw new SilasError(
          SandboxErrorCode.NetworkUnavailable,
          `Network isolation cannot be enforced: ${availability.reason}. The run is refused (network_access is false). To fix, ${INSTALL_HINT}.`,
        );
      }
      throw new SilasError(
        SandboxErrorCode.BackendUnavailable,
        `Filesystem isolation cannot be enforced: ${availability.reason}. The run is refused. To fix, ${INSTALL_HINT}.`,
      );
    }

    this.limiter ??= this.options.runLimiter ?? detectRunLimiter();
    if (this.limiter.mechanism === null && config.resource_limits === 'required') {
      throw new SilasError(
        SandboxErrorCode.LimitUnavailable,
        `sandbox_config.resource_limits is "required" but the run's aggregate limits (max_processes ${config.max_processes}, max_memory_mb ${config.max_memory_mb} for all its processes together) cannot be enforced: ${this.limiter.unavailableReason}. The run is refused. To fix, run Silas as root or in a delegated cgroup (see docs/silas/sandbox.md), or set resource_limits: best_effort.`,
      );
    }

    const readOnlyWorkDir = options.workDirAccess === 'read-only';
    const baseDir = this.options.baseDir;
    const workDir = resolveSandboxPath(config.work_dir, {
      field: 'sandbox_config.work_dir',
      baseDir,
      directory: true,
      create: options.createWorkDir ?? !readOnlyWorkDir,
    });
    const mounts: Mount[] = [
      ...config.filesystem_read.map((path, i) => ({ path: resolveSandboxPath(path, { field: `sandbox_config.filesystem_read.${i}`, baseDir }), writable: false })),
      ...config.filesystem_write.map((path, i) => ({ path: resolveSandboxPath(path, { field: `sandbox_config.filesystem_write.${i}`, baseDir }), writable: true })),
      // Listed last: the work dir's own access mode wins over a read or write entry naming the same path.
      { path: workDir, writable: !readOnlyWorkDir },
    ];
    const homeDir = options.freshHome ? FRESH_HOME : null;
    const overlapping = homeDir === null ? undefined : mounts.find((mount) => isWithin(mount.path, homeDir) || isWithin(homeDir, mount.path));
    if (overlapping) {
      // A bind over the fresh HOME (or around it) would hand the run a HOME someone else wrote.
      throw new SilasError(SandboxErrorCode.PathInvalid, `sandbox_config: "${overlapping.path}" overlaps ${FRESH_HOME}, where the run's fresh HOME is mounted; mount a directory outside it`);
    }
    this.system ??= discoverSystemEntries();
    const sandbox = new BwrapSandbox(this.newId(), config, workDir, homeDir, mounts, this.system, availability, this.limiter);
    this.sandboxes.set(sandbox.id, sandbox);
    return sandbox;
  }

  async destroy(sandboxId: string): Promise<void> {
    const sandbox = this.sandboxes.get(sandboxId);
    if (!sandbox) return;
    this.sandboxes.delete(sandboxId);
    await sandbox.shutdown();
  }
}

function parseExitCode(status: string): number | null {
  const match = /"exit-code"\s*:\s*(\d+)/.exec(status);
  return match ? Number(match[1]) : null;
}

class BwrapSandbox implements Sandbox {
  readonly enforcement: SandboxEnforcement;
  private readonly running = new Set<RunningProcess>();
  private destroyed = false;

  constructor(
    readonly id: string,
    readonly config: SandboxConfig,
    readonly workDir: string,
    readonly homeDir: string | null,
    private readonly mounts: Mount[],
    private readonly system: SystemEntry[],
    private readonly availability: SandboxAvailability,
    private readonly limiter: RunLimiter,
  ) {
    const limits = availability.prlimitPath !== null;
    const aggregate = limiter.mechanism !== null;
    this.enforcement = { filesystem: true, networkIsolated: !config.network_access, memoryLimit: limits, cpuLimit: limits, processLimit: aggregate, runMemoryLimit: aggregate };
  }

  async run(request: SandboxRunRequest): Promise<SandboxRunResult> {
    if (this.destroyed) throw new SilasError(SandboxErrorCode.NotFound, `Sandbox ${this.id} was destroyed; create a new one`);
    const { argv } = request;
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((arg) => typeof arg !== 'string' || arg.includes('\0')) || argv[0] === '') {
      throw new SilasError(SandboxErrorCode.CommandInvalid, 'command: give a non-empty argument list of strings without NUL bytes, e.g. ["python3", "script.py"]');
    }
    if (!Number.isFinite(request.timeoutMs) || request.timeoutMs <= 0) {
      throw new SilasError(SandboxErrorCode.ConfigInvalid, 'timeoutMs: must be a positive number of milliseconds');
    }
    if (!Number.isInteger(request.maxOutputBytes) || request.maxOutputBytes <= 0) {
      throw new SilasError(SandboxErrorCode.ConfigInvalid, 'maxOutputBytes: must be a positive integer');
    }
    const env = SandboxEnv.safeParse({ ...this.config.env, ...request.env });
    if (!env.success) throw new SilasError(SandboxErrorCode.ConfigInvalid, `Invalid environment: ${describeIssues(env.error, 'env')}`);

    const prlimitPath = this.availability.prlimitPath;
    const args = buildBwrapArgs({
      system: this.system,
      etc: presentEtcEntries(this.config.network_access),
      mounts: this.mounts,
      workDir: this.workDir,
      freshHome: this.homeDir,
      networkAccess: this.config.network_access,
      limits: prlimitPath ? { prlimitPath, maxMemoryMb: this.config.max_memory_mb, maxCpuSeconds: this.config.max_cpu_seconds } : null,
      argv,
    });
    // Created per run, before anything starts: every process of the run is born inside it.
    const cgroup = this.runCgroup();
    const [file, fileArgs] = inCgroup(cgroup, this.availability.bwrapPath, args);
    let outcome;
    let limits: RunLimitReport = UNLIMITED_REPORT;
    try {
      const process = startProcess(file, fileArgs, {
        env: env.data,
        stdin: request.stdin,
        timeoutMs: request.timeoutMs,
        maxOutputBytes: request.maxOutputBytes,
        statusFd: true,
        signal: request.signal,
      });
      this.running.add(process);
      try {
        outcome = await process.done;
      } catch (error) {
        throw new SilasError(SandboxErrorCode.SpawnFailed, `Could not start bubblewrap at ${this.availability.bwrapPath}: ${(error as Error).message}`, { cause: error });
      } finally {
        this.running.delete(process);
      }
    } finally {
      if (cgroup !== null) limits = await cgroup.finish();
    }
    if (cgroup !== null && outcome.code === 125 && /^silas-limits: /m.test(outcome.stderr.toString('utf8'))) {
      throw new SilasError(SandboxErrorCode.LimitUnavailable, `The run could not enter its cgroup, so its limits would not apply: ${outcome.stderr.toString('utf8').trim().slice(0, 300)}. The run is refused; see docs/silas/sandbox.md.`);
    }
    const stderr = outcome.stderr.toString('utf8');
    let exitCode = parseExitCode(outcome.status);
    if (exitCode === null && !outcome.timedOut) {
      // bwrap exec's the command itself when no prlimit wrapper is used: a missing program is the command's failure.
      if (/^bwrap: execvp /m.test(stderr)) exitCode = 127;
      else if (this.destroyed) exitCode = null;
      else throw new SilasError(SandboxErrorCode.SpawnFailed, `The sandbox could not be set up: ${stderr.trim().slice(0, 500) || `bwrap exited ${outcome.code}`}`);
    }
    return {
      exitCode: outcome.timedOut ? null : exitCode,
      stdout: outcome.stdout.toString('utf8'),
      stderr,
      stdoutTruncated: outcome.stdoutBytes > outcome.stdout.length,
      stderrTruncated: outcome.stderrBytes > outcome.stderr.length,
      stdoutBytes: outcome.stdoutBytes,
      stderrBytes: outcome.stderrBytes,
      timedOut: outcome.timedOut,
      durationMs: outcome.durationMs,
      limits,
    };
  }

  /** The run's cgroup; best_effort runs without one when it cannot be made, required ones are refused. */
  private runCgroup(): RunCgroup | null {
    if (this.limiter.mechanism === null) return null;
    try {
      return this.limiter.create({ maxProcesses: this.config.max_processes, maxMemoryMb: this.config.max_memory_mb });
    } catch (error) {
      if (this.config.resource_limits === 'best_effort') return null;
      throw error;
    }
  }

  async shutdown(): Promise<void> {
    this.destroyed = true;
    const pending = [...this.running];
    for (const process of pending) process.kill();
    await Promise.allSettled(pending.map((process) => process.done));
  }
}
