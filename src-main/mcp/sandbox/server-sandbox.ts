import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_SERVER_MAX_MEMORY_MB, DEFAULT_SERVER_MAX_PROCESSES, SANDBOX_KEY, type SandboxDocument } from '../../../src-shared/policy/schema-sandbox.js';
import type { ServerSandboxSummary } from '../../../src-shared/schemas/server-sandbox.js';
import { buildBwrapArgs, discoverSystemEntries, orderMounts, presentEtcEntries, type Mount } from '../../sandbox/bwrap-args.js';
import { isWithin, resolveSandboxPath } from '../../sandbox/paths.js';
import { inCgroup, type RunCgroup, type RunLimiter } from '../../sandbox/run-limits.js';
import type { SandboxAvailability } from '../../sandbox/types.js';
import { bridgeArgv, DEFAULT_BRIDGE_PORT, proxyEnvironment } from './egress/egress-bridge.js';
import { resolveServerCommand, SYSTEM_TREES } from './runtime-paths.js';

/*
 * The sandbox of one governed MCP server (DESIGN invariant 10; docs/mcp-sandbox.md): from the
 * policy's `spec.x-silas-sandbox` and the server command, the bubblewrap invocation that shows the
 * server only what it was granted. Built before anything starts, so every mistake in the policy is
 * an error that names the field, and nothing runs half-configured.
 */

export class SandboxSetupError extends Error {}

export interface ServerSandboxInput {
  command: string;
  args: readonly string[];
  sandbox: SandboxDocument | null;
  /** The policy's protected_paths as written; absolute ones are hidden inside grants. */
  protectedPaths: readonly string[];
  policyFile: string;
  homeDir: string;
  dataHome: string;
  cwd: string;
  /** The proxy's environment: PATH to resolve the command, values for env.pass. */
  environment: NodeJS.ProcessEnv;
  availability: SandboxAvailability;
  limiter: RunLimiter;
  /** Fills env.secrets from the OS keyring; throws with the fix when one is missing. */
  secrets: (refs: ReadonlyMap<string, string>) => Record<string, string>;
  /** With network mode hosts: the egress proxy's socket (its folder is mounted read-only). */
  egressSocket?: string;
  /** The node that runs the in-sandbox egress bridge (default: this process's). */
  nodePath?: string;
}

export interface ServerLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  summary: ServerSandboxSummary;
  cgroup: RunCgroup | null;
}

/** Folders every program shares its sockets in: the server gets a private /tmp instead, and none of these. */
const SOCKET_TREES = ['/tmp', '/var/tmp', '/run', '/dev/shm'];

/** The shared socket folder a grant of `path` (absolute, normalised) would contain, if any: such a grant is refused. */
export function socketTreeIn(path: string): string | undefined {
  return SOCKET_TREES.find((tree) => isWithin(tree, path));
}

const field = (...path: (string | number)[]) => `spec.${SANDBOX_KEY}.${path.map(String).join('.')}`;

/** `~` and `$HOME` expanded by concatenation, not `join`: a ".." must reach resolveSandboxPath, which refuses it. */
function expandHome(path: string, home: string): string {
  if (path === '~' || path === '$HOME') return home;
  if (path.startsWith('~/')) return `${home}/${path.slice(2)}`;
  if (path.startsWith('$HOME/')) return `${home}/${path.slice(6)}`;
  return path;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * What no server sees, whatever it is granted: the data home (ledger, control.json, the control
 * socket), the policy file, the default data and config folders of Silas, the keyring's files,
 * and every absolute protected path of the policy.
 */
function forbiddenPaths(input: Pick<ServerSandboxInput, 'protectedPaths' | 'policyFile' | 'homeDir' | 'dataHome'> & { environment?: NodeJS.ProcessEnv }): string[] {
  // The session bus may live anywhere its address says (dbus-run-session puts it in /tmp).
  const bus = /(?:^|;)unix:path=([^,;]+)/.exec(input.environment?.DBUS_SESSION_BUS_ADDRESS ?? '')?.[1];
  const always = [input.dataHome, input.policyFile, join(input.homeDir, '.local', 'share', 'silas'), join(input.homeDir, '.config', 'silas'), join(input.homeDir, '.local', 'share', 'keyrings'), ...(bus ? [bus] : [])];
  const fromPolicy = input.protectedPaths.map((entry) => expandHome(entry, input.homeDir)).filter((entry) => isAbsolute(entry) && !/[*?[]/.test(entry));
  return [...new Set([...always, ...fromPolicy].flatMap((path) => [resolve(path), realOrSelf(resolve(path))]))];
}

function grants(document: SandboxDocument | null, input: ServerSandboxInput, forbidden: readonly string[]): { mounts: Mount[]; runtime: Mount[] } {
  const mounts: Mount[] = [];
  const runtime: Mount[] = [];
  for (const [kind, writable] of [['read', false], ['write', true]] as const) {
    (document?.filesystem?.[kind] ?? []).forEach((written, index) => {
      const name = field('filesystem', kind, index);
      const real = resolveSandboxPath(expandHome(written, input.homeDir), { field: name, baseDir: input.cwd });
      const hidden = forbidden.find((path) => isWithin(real, path));
      if (hidden !== undefined) throw new SandboxSetupError(`${name}: "${written}" is inside ${hidden}, which no MCP server may see (a protected path, the policy or the Silas data home); grant a folder outside it`);
      if (real === input.homeDir || real === '/') throw new SandboxSetupError(`${name}: "${written}" grants the whole ${real === '/' ? 'filesystem' : 'home directory'}; grant the folders the server needs`);
      const shared = socketTreeIn(real);
      if (shared !== undefined) throw new SandboxSetupError(`${name}: "${written}" contains ${shared}, where other programs keep their sockets (the session bus, the display, other sandboxes' egress proxies); grant a folder of its own inside it`);
      mounts.push({ path: real, writable });
    });
  }
  for (const [index, written] of (document?.filesystem?.runtime ?? []).entries()) {
    const real = resolveSandboxPath(expandHome(written, input.homeDir), { field: field('filesystem', 'runtime', index), baseDir: input.cwd });
    if (forbidden.some((path) => isWithin(path, real) || isWithin(real, path))) throw new SandboxSetupError(`${field('filesystem', 'runtime', index)}: "${written}" contains or is inside a path no MCP server may see; name the program's own folder`);
    runtime.push({ path: real, writable: false });
  }
  return { mounts, runtime };
}

/** Forbidden paths that exist inside a mount, each hidden in place. */
function masksFor(mounts: readonly Mount[], forbidden: readonly string[]): { path: string; kind: 'dir' | 'file' }[] {
  const masks = new Map<string, 'dir' | 'file'>();
  for (const path of forbidden) {
    if (!mounts.some((mount) => mount.path !== path && isWithin(path, mount.path))) continue;
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) continue;
    masks.set(path, stat.isDirectory() ? 'dir' : 'file');
  }
  return [...masks].map(([path, kind]) => ({ path, kind }));
}

function environment(document: SandboxDocument | null, input: ServerSandboxInput, program: string, interpreter: string | null): { env: Record<string, string>; secretNames: string[] } {
  const path = [...new Set([interpreter, program].flatMap((file) => (file && !SYSTEM_TREES.some((tree) => isWithin(file, tree)) ? [dirname(file)] : [])))];
  const env: Record<string, string> = { PATH: [...path, '/usr/local/bin', '/usr/bin', '/bin'].join(':'), HOME: input.homeDir, TMPDIR: '/tmp' };
  for (const name of document?.env?.pass ?? []) {
    const value = input.environment[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of document?.env?.set ?? []) env[name] = value;
  const refs = document?.env?.secrets ?? new Map<string, string>();
  Object.assign(env, refs.size > 0 ? input.secrets(refs) : {});
  return { env, secretNames: [...refs.keys()] };
}

/** What the egress proxy lets through for this policy: listed hosts, and the host's loopback ports. */
export function egressOf(document: SandboxDocument | null): { hosts: readonly string[]; loopbackPorts: readonly number[] } {
  const network = document?.network;
  if (network === undefined || network.mode === 'none') return { hosts: [], loopbackPorts: [] };
  return { hosts: network.mode === 'hosts' ? network.hosts : [], loopbackPorts: network.loopback_ports };
}

/** Builds the launch of a sandboxed server; throws, before anything starts, an error naming the field or command and the fix. */
export function prepareSandboxedServer(input: ServerSandboxInput): ServerLaunch {
  if (!input.availability.available) throw new SandboxSetupError(`the sandbox is not available: ${input.availability.reason ?? 'unknown reason'}`);
  const document = input.sandbox;
  const forbidden = forbiddenPaths(input);
  const resolved = resolveServerCommand(input.command, input.args, { cwd: input.cwd, pathVariable: input.environment.PATH, forbidden });
  const { mounts: granted, runtime: listed } = grants(document, input, forbidden);
  const runtime = [...resolved.runtime.filter((path) => !forbidden.some((hidden) => isWithin(path, hidden))).map((path) => ({ path, writable: false })), ...listed];
  const { hosts, loopbackPorts } = egressOf(document);
  const bridged = hosts.length > 0 || loopbackPorts.length > 0;
  let argv = [resolved.program, ...input.args];
  const extra: Mount[] = [];
  const { env, secretNames } = environment(document, input, resolved.program, resolved.interpreter);
  if (bridged) {
    if (input.egressSocket === undefined) throw new SandboxSetupError(`${field('network')}: the egress proxy is not running`);
    const node = realOrSelf(input.nodePath ?? process.execPath);
    if (!SYSTEM_TREES.some((tree) => isWithin(node, tree))) extra.push({ path: dirname(dirname(node)), writable: false });
    extra.push({ path: dirname(input.egressSocket), writable: false });
    try {
      argv = bridgeArgv(node, input.egressSocket, DEFAULT_BRIDGE_PORT, argv, loopbackPorts);
    } catch (error) {
      throw new SandboxSetupError(`${field('network', 'loopback_ports')}: ${(error as Error).message}`);
    }
    if (hosts.length > 0) Object.assign(env, proxyEnvironment(DEFAULT_BRIDGE_PORT));
  }
  // Grants win over runtime paths listed at the same place (orderMounts keeps the last).
  const mounts = orderMounts([...runtime, ...extra, ...granted]);
  const visible = (path: string) => mounts.some((mount) => isWithin(path, mount.path));
  const masks = masksFor(mounts, forbidden);
  const home = input.homeDir !== '/' && !SYSTEM_TREES.some((tree) => isWithin(tree, input.homeDir)) ? input.homeDir : null;

  const requested = document?.limits;
  const limits = { maxProcesses: requested?.max_processes ?? DEFAULT_SERVER_MAX_PROCESSES, maxMemoryMb: requested?.max_memory_mb ?? DEFAULT_SERVER_MAX_MEMORY_MB };
  if (input.limiter.mechanism === null && requested !== undefined) {
    throw new SandboxSetupError(`${field('limits')}: the policy requires limits that cannot be enforced here: ${input.limiter.unavailableReason ?? 'no usable cgroup'}`);
  }
  const args = buildBwrapArgs({
    system: discoverSystemEntries(),
    // /etc/hosts and resolv.conf, so `localhost` and names resolve as the proxy's clients expect.
    etc: presentEtcEntries(bridged, existsSync),
    mounts,
    masks,
    workDir: visible(input.cwd) ? input.cwd : '/tmp',
    freshHome: home,
    networkAccess: false,
    statusFd: false,
    limits: null,
    argv,
  });
  const cgroup = input.limiter.mechanism === null ? null : input.limiter.create(limits);
  const [file, fileArgs] = inCgroup(cgroup, input.availability.bwrapPath, args);
  return {
    file,
    args: fileArgs,
    env,
    cgroup,
    summary: {
      backend: 'bubblewrap',
      unsandboxedReason: null,
      read: granted.filter((mount) => !mount.writable).map((mount) => mount.path),
      write: granted.filter((mount) => mount.writable).map((mount) => mount.path),
      runtime: [...runtime, ...extra].map((mount) => mount.path),
      masked: masks.map((mask) => mask.path),
      env: Object.keys(env).sort(),
      secrets: secretNames,
      network: { mode: hosts.length > 0 ? 'hosts' : loopbackPorts.length > 0 ? 'loopback' : 'none', hosts: [...hosts], loopbackPorts: [...loopbackPorts] },
      limits: { mechanism: input.limiter.mechanism, max_processes: cgroup ? limits.maxProcesses : null, max_memory_mb: cgroup ? limits.maxMemoryMb : null },
    },
  };
}

/** The summary recorded for a server that runs without a sandbox, and why. */
export function unsandboxedSummary(reason: string): ServerSandboxSummary {
  return { backend: 'none', unsandboxedReason: reason, read: [], write: [], runtime: [], masked: [], env: [], secrets: [], network: { mode: 'hosts', hosts: ['*'], loopbackPorts: [] }, limits: { mechanism: null, max_processes: null, max_memory_mb: null } };
}
