import { accessSync, constants } from 'node:fs';
import { buildBwrapArgs, discoverSystemEntries, presentEtcEntries } from './bwrap-args.js';
import { runProcess } from './process-runner.js';
import type { SandboxAvailability } from './types.js';

export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';
export const DEFAULT_PRLIMIT_PATH = '/usr/bin/prlimit';
export const INSTALL_HINT = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Decides once whether bubblewrap can isolate a process here. Presence of the binary is not
 * enough: inside a container without user namespaces, or with them disabled by sysctl, bwrap
 * exists but cannot create namespaces. So the probe runs `true` inside a sandbox built the same
 * way as a real one (network unshared) and accepts only a clean exit reported by bwrap itself.
 */
export async function probeBubblewrap(bwrapPath: string, prlimitPath: string): Promise<SandboxAvailability> {
  const prlimit = executable(prlimitPath) ? prlimitPath : null;
  if (!executable(bwrapPath)) {
    return { available: false, bwrapPath, prlimitPath: prlimit, reason: `bubblewrap was not found at ${bwrapPath}` };
  }
  const args = buildBwrapArgs({
    system: discoverSystemEntries(),
    etc: presentEtcEntries(false),
    mounts: [],
    workDir: '/tmp',
    networkAccess: false,
    limits: prlimit ? { prlimitPath: prlimit, maxMemoryMb: 256, maxCpuSeconds: 5 } : null,
    argv: ['true'],
  });
  try {
    const outcome = await runProcess(bwrapPath, args, { env: {}, timeoutMs: 10_000, maxOutputBytes: 4096, statusFd: true });
    if (outcome.code === 0 && /"exit-code"\s*:\s*0\b/.test(outcome.status)) {
      return { available: true, bwrapPath, prlimitPath: prlimit, reason: null };
    }
    const detail = outcome.timedOut ? 'the probe timed out' : outcome.stderr.toString('utf8').trim().slice(0, 300) || `exit ${outcome.code}`;
    return { available: false, bwrapPath, prlimitPath: prlimit, reason: `bubblewrap at ${bwrapPath} cannot create namespaces here (${detail})` };
  } catch (error) {
    return { available: false, bwrapPath, prlimitPath: prlimit, reason: `bubblewrap at ${bwrapPath} could not be started (${(error as Error).message})` };
  }
}
