import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SilasError } from '../../src-shared/errors.js';
import { SandboxErrorCode } from '../../src-shared/silas/execution.js';
import { cgroupDir, counter, parseMountInfo, probe, read, removeCgroup, runName, sweepStale, tryRmdir, tryWrite } from './cgroup-fs.js';

/**
 * Aggregate limits of one sandbox run (docs/silas/sandbox.md "Aggregate run limits (cgroups)"):
 * RLIMIT_AS and RLIMIT_CPU are per process, so a run could fork a thousand processes or spread its
 * memory over many. A cgroup per run caps them together: pids.max for processes and threads, a
 * memory limit for all resident memory.
 *
 * cgroup v2 is used when its hierarchy offers both controllers; otherwise the v1 `pids` and
 * `memory` hierarchies (hybrid hosts, containers such as this project's CI). Run cgroups are
 * created below the runtime's own cgroup, so they stay inside whatever limits it already has.
 */

type LimitMechanism = 'cgroup2' | 'cgroup1';

interface RunLimits {
  maxProcesses: number;
  maxMemoryMb: number;
}

/** What a run's result and audit entry say about its aggregate limits. */
export interface RunLimitReport {
  /** null: no aggregate limit was enforced (best_effort on a host without usable cgroups). */
  mechanism: LimitMechanism | null;
  max_processes: number | null;
  max_memory_mb: number | null;
  /** A fork or clone failed because the run was at max_processes. */
  process_limit_hit: boolean;
  /** The run reached its memory limit and the kernel killed a process of it (OOM). */
  memory_limit_hit: boolean;
  /** Highest memory use of the run, in MiB (rounded up), when the kernel reports it. */
  peak_memory_mb: number | null;
}

export const UNLIMITED_REPORT: RunLimitReport = { mechanism: null, max_processes: null, max_memory_mb: null, process_limit_hit: false, memory_limit_hit: false, peak_memory_mb: null };

/** One run's cgroup(s): the wrapper writes its pid into `procsFiles` before it execs bubblewrap. */
export interface RunCgroup {
  readonly procsFiles: readonly string[];
  /** Reads what the kernel counted, kills anything left and removes the cgroup(s). */
  finish(): Promise<RunLimitReport>;
}

export interface RunLimiter {
  readonly mechanism: LimitMechanism | null;
  /** Why aggregate limits cannot be enforced here, with the fix; null when they can. */
  readonly unavailableReason: string | null;
  create(limits: RunLimits): RunCgroup;
}

const FIX = 'run Silas as root or in a cgroup delegated to its user (e.g. `systemd-run --user --scope -p Delegate=yes silas …`), or set sandbox_config.resource_limits: best_effort to run without aggregate limits';

const MIB = 1024 * 1024;

const SHELL = '/bin/sh';
// The shell enters the cgroups itself, then becomes bubblewrap: every process of the run is
// born inside them, with no window in which one runs unlimited.
const ENTER_CGROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "silas-limits: cannot enter cgroup $1" >&2; exit 125; }; shift; done; shift; exec "$@"';

/** The program and arguments that run `file args` inside `cgroup` (or directly without one). */
export function inCgroup(cgroup: RunCgroup | null, file: string, args: readonly string[]): [string, string[]] {
  return cgroup === null ? [file, [...args]] : [SHELL, ['-c', ENTER_CGROUPS, 'silas-limits', ...cgroup.procsFiles, '--', file, ...args]];
}

function limitUnavailable(message: string): SilasError {
  return new SilasError(SandboxErrorCode.LimitUnavailable, message);
}

/** Creates one cgroup per directory in `parents`, sets the limits, and undoes it all on failure. */
function createRunDirs(parents: readonly string[], setLimits: (dirs: readonly string[]) => string | null): string[] {
  const name = runName();
  const dirs: string[] = [];
  const undo = () => dirs.forEach((dir) => tryRmdir(dir));
  try {
    for (const parent of parents) {
      const dir = join(parent, name);
      mkdirSync(dir);
      dirs.push(dir);
    }
  } catch (error) {
    undo();
    throw limitUnavailable(`Could not create the run's cgroup: ${(error as Error).message}. To fix, ${FIX}.`);
  }
  const failed = setLimits(dirs);
  if (failed !== null) {
    undo();
    throw limitUnavailable(`Could not set the run's limits: ${failed}. To fix, ${FIX}.`);
  }
  return dirs;
}

function peakMb(text: string): number | null {
  const bytes = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(bytes) ? Math.ceil(bytes / MIB) : null;
}

/** v1: pids.max in the pids hierarchy; the memory limit (and memory+swap, when accounted) in memory. */
function setV1([pidsDir, memoryDir]: readonly string[], limits: RunLimits): string | null {
  const bytes = String(limits.maxMemoryMb * MIB);
  const memsw = join(memoryDir!, 'memory.memsw.limit_in_bytes');
  return (
    tryWrite(join(pidsDir!, 'pids.max'), String(limits.maxProcesses)) ??
    tryWrite(join(memoryDir!, 'memory.limit_in_bytes'), bytes) ??
    // Without this, swap would let the run use more than its limit.
    (existsSync(memsw) ? tryWrite(memsw, bytes) : null)
  );
}

function setV2([dir]: readonly string[], limits: RunLimits): string | null {
  const swap = join(dir!, 'memory.swap.max');
  return (
    tryWrite(join(dir!, 'pids.max'), String(limits.maxProcesses)) ??
    tryWrite(join(dir!, 'memory.max'), String(limits.maxMemoryMb * MIB)) ??
    (existsSync(swap) ? tryWrite(swap, '0') : null)
  );
}

class CgroupLimiter implements RunLimiter {
  readonly unavailableReason = null;

  constructor(
    readonly mechanism: LimitMechanism,
    /** v1: [pids parent, memory parent]; v2: [parent]. */
    private readonly parents: readonly string[],
  ) {}

  create(limits: RunLimits): RunCgroup {
    const v1 = this.mechanism === 'cgroup1';
    const dirs = createRunDirs(this.parents, (made) => (v1 ? setV1(made, limits) : setV2(made, limits)));
    const [pidsDir, memoryDir = pidsDir] = dirs as [string, string?];
    return {
      procsFiles: dirs.map((dir) => join(dir, 'cgroup.procs')),
      finish: async () => {
        const report: RunLimitReport = {
          mechanism: this.mechanism,
          max_processes: limits.maxProcesses,
          max_memory_mb: limits.maxMemoryMb,
          process_limit_hit: counter(read(join(pidsDir, 'pids.events')), 'max') > 0,
          memory_limit_hit: counter(read(join(memoryDir!, v1 ? 'memory.oom_control' : 'memory.events')), 'oom_kill') > 0,
          peak_memory_mb: peakMb(read(join(memoryDir!, v1 ? 'memory.max_usage_in_bytes' : 'memory.peak'))),
        };
        if (!v1) tryWrite(join(pidsDir, 'cgroup.kill'), '1');
        for (const dir of dirs) await removeCgroup(dir);
        return report;
      },
    };
  }
}

class UnavailableLimiter implements RunLimiter {
  readonly mechanism = null;
  constructor(readonly unavailableReason: string) {}
  create(): RunCgroup {
    throw limitUnavailable(`Aggregate run limits cannot be enforced: ${this.unavailableReason}. To fix, ${FIX}.`);
  }
}

/**
 * v2 needs the controllers enabled in the parent's subtree_control, which the kernel refuses while
 * the parent itself holds processes ("no internal processes"); the runtime then moves itself into
 * a leaf `silas-runtime` first, as a delegated cgroup's owner is expected to.
 */
function prepareV2(own: string): string | null {
  const enabled = () => read(join(own, 'cgroup.subtree_control')).split(/\s+/);
  if (enabled().includes('pids') && enabled().includes('memory')) return null;
  if (tryWrite(join(own, 'cgroup.subtree_control'), '+pids +memory') === null) return null;
  const leaf = join(own, 'silas-runtime');
  try {
    mkdirSync(leaf, { recursive: true });
    writeFileSync(join(leaf, 'cgroup.procs'), String(process.pid));
  } catch (error) {
    return `cannot move the runtime into ${leaf}: ${(error as Error).message}`;
  }
  const failed = tryWrite(join(own, 'cgroup.subtree_control'), '+pids +memory');
  return failed === null ? null : `cannot enable pids and memory for the children of ${own} (${failed}; other processes share this cgroup)`;
}

/**
 * Finds where this process may create run cgroups, and proves it by creating a probe cgroup with
 * both limits set. `procSelf` is injectable so a test can describe a host without cgroups.
 */
export function detectRunLimiter(procSelf = '/proc/self'): RunLimiter {
  const mounts = parseMountInfo(read(join(procSelf, 'mountinfo')));
  const lines = read(join(procSelf, 'cgroup'))
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id = '', controllers = '', ...rest] = line.split(':');
      return { id, controllers: controllers.split(',').filter(Boolean), path: rest.join(':') };
    });
  const reasons: string[] = [];
  const probeLimits: RunLimits = { maxProcesses: 64, maxMemoryMb: 64 };

  const unified = lines.find((line) => line.id === '0' && line.controllers.length === 0);
  const v2Mount = mounts.find((mount) => mount.fsType === 'cgroup2');
  const own = unified && v2Mount ? cgroupDir(v2Mount, unified.path) : null;
  if (own !== null) {
    const offered = read(join(own, 'cgroup.controllers')).split(/\s+/);
    if (offered.includes('pids') && offered.includes('memory')) {
      const failed = prepareV2(own) ?? probe([own], (dirs) => setV2(dirs, probeLimits));
      if (failed === null) {
        sweepStale(own);
        return new CgroupLimiter('cgroup2', [own]);
      }
      reasons.push(`cgroup v2 at ${own}: ${failed}`);
    } else {
      reasons.push(`cgroup v2 at ${own} offers no pids and memory controllers`);
    }
  }

  const v1Dir = (controller: string): string | null => {
    const line = lines.find((candidate) => candidate.controllers.includes(controller));
    const mount = mounts.find((candidate) => candidate.fsType === 'cgroup' && candidate.superOptions.includes(controller));
    return line && mount ? cgroupDir(mount, line.path) : null;
  };
  const pids = v1Dir('pids');
  const memory = v1Dir('memory');
  if (pids !== null && memory !== null) {
    const failed = probe([pids, memory], (dirs) => setV1(dirs, probeLimits));
    if (failed === null) {
      sweepStale(pids);
      sweepStale(memory);
      return new CgroupLimiter('cgroup1', [pids, memory]);
    }
    reasons.push(`cgroup v1 pids ${pids} / memory ${memory}: ${failed}`);
  } else {
    reasons.push(`no cgroup v1 ${pids === null ? 'pids' : 'memory'} hierarchy is mounted for this process`);
  }
  return new UnavailableLimiter(reasons.join('; '));
}
