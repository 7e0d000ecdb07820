import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../home/home.js';

// The host's cgroup filesystem as the run limiter uses it: reading and writing control files,
// finding this process's cgroups, and creating/removing run cgroups without leaving any behind.

let sequence = 0;

export function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** `key value` lines (memory.events, pids.events, memory.oom_control). */
export function counter(text: string, key: string): number {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/** Kills every process still in `dir` and removes it; the kernel needs a moment to reap them. */
export async function removeCgroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    for (const pid of read(join(dir, 'cgroup.procs')).split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY') throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Removes run cgroups a crashed runtime left behind (their name carries its pid). */
export function sweepStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^silas-run-(\d+)-/.exec(name);
    if (!match || Number(match[1]) === process.pid || pidAlive(Number(match[1]))) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // Still busy or not ours to remove: leave it.
    }
  }
}

export function runName(): string {
  sequence += 1;
  return `silas-run-${process.pid}-${sequence}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface MountEntry {
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const fields = left.split(' ');
    const [fsType, , superOptions] = right.split(' ');
    if (fields[3] === undefined || fields[4] === undefined || fsType === undefined) continue;
    entries.push({ root: fields[3], mountPoint: fields[4], fsType, superOptions: (superOptions ?? '').split(',') });
  }
  return entries;
}

/** The host directory of cgroup `path` (from /proc/self/cgroup) under a mount of its hierarchy. */
export function cgroupDir(mount: MountEntry, path: string): string | null {
  if (mount.root !== '/' && path !== mount.root && !path.startsWith(`${mount.root}/`)) return null;
  const relative = mount.root === '/' ? path : path.slice(mount.root.length);
  return join(mount.mountPoint, relative);
}

export function tryWrite(path: string, value: string): string | null {
  try {
    writeFileSync(path, value);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Creates and removes a probe cgroup with both limits set: the only proof that this works here. */
export function probe(dirs: readonly string[], setLimits: (dirs: readonly string[]) => string | null): string | null {
  const made: string[] = [];
  try {
    for (const dir of dirs) {
      const child = join(dir, `${runName()}-probe`);
      mkdirSync(child);
      made.push(child);
    }
    return setLimits(made);
  } catch (error) {
    return (error as Error).message;
  } finally {
    for (const dir of made) {
      try {
        rmdirSync(dir);
      } catch {
        // An empty probe cgroup always goes; nothing ran in it.
      }
    }
  }
}

export function tryRmdir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Best effort: an empty cgroup is removed later by sweepStale.
  }
}
