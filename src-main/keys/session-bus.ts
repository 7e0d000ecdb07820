import { lstatSync } from 'node:fs';
import { join } from 'node:path';

/*
 * Finding the D-Bus session bus the OS keyring (Secret Service) answers on, when the process was
 * started without DBUS_SESSION_BUS_ADDRESS. MCP clients choose their children's environment: the
 * MCP SDK's StdioClientTransport passes only HOME, LOGNAME, PATH, SHELL, TERM and USER, so a
 * wrapped `silas proxy` would otherwise never reach the keyring (docs/mcp-proxy.md "Starting under
 * any client").
 *
 * The search is libdbus's own: `$XDG_RUNTIME_DIR/bus`, then `/run/user/$UID/bus`. A candidate counts
 * only when it is a socket (not a symlink) owned by this user in a directory owned by this user: a
 * bus another user put there could impersonate the Secret Service. An address is never read from
 * a file in the data home, which a local writer of the home could point at a fake keyring.
 */

export interface SessionBusContext {
  env: NodeJS.ProcessEnv;
  /** This process's uid; null where there is none (Windows): nothing is searched. */
  uid: number | null;
  /** Where per-user runtime directories live: `/run/user` on Linux. */
  runUserDir: string;
}

export type SessionBus =
  /** The environment's address was kept (it is not a path, or its socket exists). */
  | { source: 'environment'; address: string }
  /** Found on disk; `replaced` is the environment's address whose socket is gone, if any. */
  | { source: 'discovered'; address: string; socket: string; replaced: string | null }
  /** No usable bus: `tried` says what was looked at and why each was refused. */
  | { source: 'none'; tried: string[]; replaced: string | null };

/** The socket path of a `unix:path=` address (the first one of a `;` list), else null. */
export function busSocketPath(address: string): string | null {
  return /(?:^|;)unix:path=([^,;]+)/.exec(address)?.[1] ?? null;
}

/** Why `socket` is not this user's session bus, or null when it is. */
function refusal(socket: string, dir: string, uid: number): string | null {
  let dirStat;
  let stat;
  try {
    dirStat = lstatSync(dir);
    stat = lstatSync(socket);
  } catch {
    return `${socket} does not exist`;
  }
  if (!dirStat.isDirectory() || dirStat.uid !== uid) return `${dir} is not a directory owned by uid ${uid}`;
  if (stat.isSymbolicLink()) return `${socket} is a symbolic link, not the bus socket`;
  if (!stat.isSocket()) return `${socket} is not a socket`;
  if (stat.uid !== uid) return `${socket} belongs to uid ${stat.uid}, not to uid ${uid}`;
  return null;
}

/** Where this process's session bus is, by the environment first and then as libdbus finds it. */
export function findSessionBus(ctx: SessionBusContext): SessionBus {
  const current = ctx.env.DBUS_SESSION_BUS_ADDRESS;
  let replaced: string | null = null;
  if (current !== undefined && current !== '') {
    const path = busSocketPath(current);
    // An abstract or TCP address cannot be checked here; libdbus tries it as it is.
    if (path === null) return { source: 'environment', address: current };
    try {
      lstatSync(path);
      return { source: 'environment', address: current };
    } catch {
      // A client configuration may carry the address of a session that has since ended.
      replaced = current;
    }
  }
  if (ctx.uid === null) return { source: 'none', tried: [], replaced };
  const dirs = [ctx.env.XDG_RUNTIME_DIR, join(ctx.runUserDir, String(ctx.uid))].filter((dir): dir is string => dir !== undefined && dir.startsWith('/'));
  const tried: string[] = [];
  for (const dir of [...new Set(dirs)]) {
    const socket = join(dir, 'bus');
    const why = refusal(socket, dir, ctx.uid);
    if (why === null) return { source: 'discovered', address: `unix:path=${socket}`, socket, replaced };
    tried.push(why);
  }
  return { source: 'none', tried, replaced };
}

/**
 * Finds the session bus and, when it was discovered, sets its address in `env` and in this
 * process's real environment (Node's `process.env` setter calls setenv, which the native keyring
 * library reads), so the keyring and the server sandbox (which hides the bus socket named there)
 * both see it.
 */
export function adoptSessionBus(env: NodeJS.ProcessEnv, ctx: Omit<SessionBusContext, 'env'> = defaultContext()): SessionBus {
  const bus = findSessionBus({ ...ctx, env });
  if (bus.source === 'discovered') {
    env.DBUS_SESSION_BUS_ADDRESS = bus.address;
    process.env.DBUS_SESSION_BUS_ADDRESS = bus.address;
  }
  return bus;
}

function defaultContext(): Omit<SessionBusContext, 'env'> {
  return { uid: typeof process.getuid === 'function' ? process.getuid() : null, runUserDir: '/run/user' };
}

/** One line for `silas doctor` and error messages: which bus this process uses, or why none. */
export function describeSessionBus(bus: SessionBus): string {
  const gone = 'replaced' in bus && bus.replaced ? `; the address it was given (${bus.replaced}) names a socket that no longer exists` : '';
  if (bus.source === 'environment') return `D-Bus session ${bus.address}`;
  if (bus.source === 'discovered') return `D-Bus session ${bus.address} (found on disk: DBUS_SESSION_BUS_ADDRESS was not set${gone})`;
  const tried = bus.tried.length > 0 ? `; looked for the session bus: ${bus.tried.join('; ')}` : '';
  return `no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set${gone}${tried}`;
}
