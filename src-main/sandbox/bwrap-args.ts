import { existsSync, lstatSync, readlinkSync } from 'node:fs';

/**
 * The host's system directories as bubblewrap should reproduce them: merged-/usr systems have
 * /bin, /lib… as symlinks into /usr (recreated as symlinks), older ones as real directories
 * (bound read-only).
 */
export type SystemEntry = { path: string; kind: 'dir' } | { path: string; kind: 'symlink'; target: string };

const ROOT_SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The part of /etc a shell, coreutils and python need, and nothing that identifies the host or
 * its users: no passwd/shadow/group, no hostname, no ssh or sudo config. TLS roots are public
 * and are needed by anything that talks HTTPS once network is allowed.
 */
const ETC_ALWAYS = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/nsswitch.conf',
  // Not /etc/ssl as a whole: /etc/ssl/private holds host keys, and the sandbox runs as a uid
  // that may own them.
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/python3',
  '/etc/python3.11',
  '/etc/python3.12',
  '/etc/python3.13',
];
/** Name resolution, only when the network is shared. */
const ETC_NETWORK = ['/etc/resolv.conf', '/etc/hosts', '/etc/host.conf', '/etc/gai.conf'];

export function discoverSystemEntries(): SystemEntry[] {
  const entries: SystemEntry[] = [];
  for (const path of ROOT_SYSTEM_DIRS) {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) entries.push({ path, kind: 'symlink', target: readlinkSync(path) });
    else if (stat.isDirectory()) entries.push({ path, kind: 'dir' });
  }
  return entries;
}

export interface Mount {
  /** Canonical host path; mounted at the same path inside the sandbox. */
  path: string;
  writable: boolean;
}

export interface BwrapPlan {
  system: readonly SystemEntry[];
  /** Host /etc entries that exist (filtered by the caller so bwrap never fails on a missing one). */
  etc: readonly string[];
  mounts: readonly Mount[];
  workDir: string;
  /** An empty private tmpfs mounted here (a check's fresh HOME), or null. */
  freshHome?: string | null;
  networkAccess: boolean;
  /**
   * Paths inside a mount hidden from the sandbox, applied after the mounts: a directory gets an
   * empty read-only tmpfs in its place, a file /dev/null (an MCP server's grant may contain a
   * protected path or the data home).
   */
  masks?: readonly { path: string; kind: 'dir' | 'file' }[];
  /** bwrap reports the child's pid and exit code as JSON on fd 3 (default true). */
  statusFd?: boolean;
  /** When set, the command runs under prlimit with these limits. */
  limits: { prlimitPath: string; maxMemoryMb: number; maxCpuSeconds: number } | null;
  argv: readonly string[];
}

/** Existing /etc entries for a run; `--ro-bind-try` would also work but hides typos in the list. */
export function presentEtcEntries(networkAccess: boolean, exists: (path: string) => boolean = existsSync): string[] {
  return [...ETC_ALWAYS, ...(networkAccess ? ETC_NETWORK : [])].filter(exists);
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

/**
 * Merges the configured mounts: one entry per path, the entry listed last winning (callers list
 * read paths, then write paths, then the work dir, so an explicit write beats a read and the work
 * dir's own mode beats both), ordered shallow-first so that a more specific mount nested inside a
 * broader one is applied after it and takes effect.
 */
export function orderMounts(mounts: readonly Mount[]): Mount[] {
  const byPath = new Map<string, Mount>();
  for (const mount of mounts) {
    byPath.delete(mount.path);
    byPath.set(mount.path, { path: mount.path, writable: mount.writable });
  }
  return [...byPath.values()].sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
}

/**
 * The bubblewrap argument vector. Every namespace is unshared (network too, unless allowed);
 * all capabilities are dropped because bwrap started by root otherwise keeps them inside its
 * user namespace, and CAP_SYS_ADMIN there is enough to remount a read-only bind read-write.
 */
export function buildBwrapArgs(plan: BwrapPlan): string[] {
  const args = ['--unshare-all'];
  if (plan.networkAccess) args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'silas-sandbox');
  if (plan.statusFd !== false) args.push('--json-status-fd', '3');
  for (const entry of plan.system) {
    if (entry.kind === 'symlink') args.push('--symlink', entry.target, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  for (const path of plan.etc) args.push('--ro-bind', path, path);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  if (plan.freshHome) args.push('--tmpfs', plan.freshHome);
  for (const mount of orderMounts(plan.mounts)) {
    args.push(mount.writable ? '--bind' : '--ro-bind', mount.path, mount.path);
  }
  for (const mask of plan.masks ?? []) {
    if (mask.kind === 'dir') args.push('--perms', '0500', '--tmpfs', mask.path, '--remount-ro', mask.path);
    else args.push('--ro-bind', '/dev/null', mask.path);
  }
  args.push('--chdir', plan.workDir, '--');
  if (plan.limits) {
    const { prlimitPath, maxMemoryMb, maxCpuSeconds } = plan.limits;
    // Soft CPU limit sends SIGXCPU; the hard limit one second later is SIGKILL for a process that catches it.
    args.push(prlimitPath, `--as=${maxMemoryMb * 1024 * 1024}`, `--cpu=${maxCpuSeconds}:${maxCpuSeconds + 1}`, '--core=0', '--');
  }
  args.push(...plan.argv);
  return args;
}
