import { dirname, isAbsolute, posix, resolve } from 'node:path';
import { socketTreeIn } from '../sandbox/server-sandbox.js';
import { identifyLaunch, type Launcher } from './server-launch.js';
import { ENV_NAME_PATTERN } from '../../../src-shared/secret-names.js';

/*
 * A starting `x-silas-sandbox` for a server `silas clients wrap` recognises. Without the section a
 * sandboxed server sees nothing, so a freshly wrapped filesystem server would fail on its first
 * call; deriving the grants from its own command line (its directories, its repository, the hosts
 * its package needs) gives the person something to read and accept instead of a blank to fill.
 * Every grant comes with a note saying why, and anything a command line cannot tell is a note,
 * never a guess.
 */

export interface ProfileEntry {
  command: string;
  args: readonly string[];
  /** The entry's `env` in the client's configuration: the proxy gets it, the sandbox passes only what is listed. */
  env?: Readonly<Record<string, string>>;
}

export interface ProfileOptions {
  /** Where the client starts the server, when the entry says (`cwd`); relative paths resolve against it. */
  cwd?: string;
  /** The person's home folder: a sandbox never grants it whole. */
  home?: string;
}

export interface SandboxProfile {
  /** A plain object for `spec.x-silas-sandbox` (YAML-able), or null when there is nothing to propose. */
  section: Record<string, unknown> | null;
  notes: string[];
}

export const NO_PROFILE_NOTE = 'no starting profile: the server gets no files, network or environment until you add x-silas-sandbox to its policy';

interface Grants {
  write: string[];
  pass: string[];
  secrets: Map<string, string>;
  hosts: string[];
  notes: string[];
}

interface Context {
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  launcher: Launcher | null;
  /** Adds a read-write path, or a note when it cannot be granted; returns what was granted. */
  writable(raw: string): string | null;
}

interface KnownServer {
  package: string;
  /** Variables of the configuration the profile maps itself (to a secret), so they are not passed as they are. */
  handles?: readonly string[];
  grant(grants: Grants, ctx: Context): void;
}


const LAUNCHERS: Record<Launcher, { cache: string; hosts: string[]; note: string }> = {
  npx: {
    cache: '~/.npm',
    hosts: ['registry.npmjs.org'],
    note: 'started with npx, which downloads the package when the server starts: its cache ~/.npm is writable and registry.npmjs.org reachable (install the package and start its program directly to drop both)',
  },
  uvx: {
    cache: '~/.cache/uv',
    hosts: ['pypi.org', 'files.pythonhosted.org'],
    note: 'started with uv, which downloads the package when the server starts: its cache ~/.cache/uv is writable and pypi.org and files.pythonhosted.org reachable; if uv manages its own Python (~/.local/share/uv/python), add that folder under filesystem.runtime',
  },
};

function flagValue(args: readonly string[], long: string, short: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === long || arg === short) return args[i + 1];
    if (arg.startsWith(`${long}=`)) return arg.slice(long.length + 1);
  }
  return undefined;
}

const filesystemServer: KnownServer = {
  package: '@modelcontextprotocol/server-filesystem',
  grant(grants, ctx) {
    const granted = ctx.args.filter((arg) => !arg.startsWith('-')).flatMap((dir) => ctx.writable(dir) ?? []);
    grants.notes.push(
      granted.length > 0
        ? `may read and write the directories it is given: ${granted.join(', ')}`
        : 'no directories on its command line: it sees none until you list them under filesystem.write (folders a client offers later as MCP roots do not exist in the sandbox)',
    );
  },
};

const gitServer: KnownServer = {
  package: 'mcp-server-git',
  grant(grants, ctx) {
    const repository = flagValue(ctx.args, '--repository', '-r');
    const granted = repository !== undefined ? ctx.writable(repository) : null;
    if (granted !== null) grants.notes.push(`may read and write the repository ${granted}`);
    else if (repository === undefined) grants.notes.push('no --repository: it can work only in repositories you list under filesystem.write');
    grants.notes.push('git reads ~/.gitconfig for your name and settings: add it under filesystem.read if commits need them');
  },
};

const fetchServer: KnownServer = {
  package: 'mcp-server-fetch',
  grant(grants) {
    // "*" is any name, never a loopback or private address (the egress proxy checks what it resolves to).
    grants.hosts.push('*');
    grants.notes.push('fetches whatever URL it is asked for: "*" lets it reach any public host through the egress proxy (never your loopback or local network); narrow it to the sites it needs under network.hosts');
  },
};

const memoryServer: KnownServer = {
  package: '@modelcontextprotocol/server-memory',
  handles: ['MEMORY_FILE_PATH'],
  grant(grants, ctx) {
    const file = ctx.env.MEMORY_FILE_PATH;
    if (file === undefined || file === '') {
      const where = ctx.launcher === 'npx' ? 'inside the npx cache (~/.npm, writable below), so it is lost when the cache is cleaned' : 'a folder that is read-only in the sandbox, so it cannot save it';
      grants.notes.push(
        `keeps its knowledge graph next to its own program, ${where}: set MEMORY_FILE_PATH in the client's env to a file in a folder of its own, and list that folder under filesystem.write`,
      );
      return;
    }
    grants.pass.push('MEMORY_FILE_PATH');
    if (!isAbsolute(file) && !file.startsWith('~')) {
      grants.notes.push(`MEMORY_FILE_PATH "${file}" is relative to the server's own folder: give a full path in a folder of its own, and list that folder under filesystem.write`);
      return;
    }
    const folder = ctx.writable(dirname(file));
    if (folder !== null) grants.notes.push(`keeps its knowledge graph in ${file}: its folder ${folder} is writable and MEMORY_FILE_PATH is passed`);
  },
};

const githubServer: KnownServer = {
  package: '@modelcontextprotocol/server-github',
  handles: ['GITHUB_PERSONAL_ACCESS_TOKEN'],
  grant(grants) {
    grants.hosts.push('api.github.com');
    grants.secrets.set('GITHUB_PERSONAL_ACCESS_TOKEN', 'github-token');
    grants.notes.push(
      'reaches api.github.com with its token taken from the OS keyring: run `silas secrets set github-token` and paste the token (it then no longer needs to sit in the client\'s configuration)',
    );
  },
};

/** Every name a known server goes by (npm package, PyPI package, bin, Python module), normalised. */
const KNOWN = new Map<string, KnownServer>();
for (const [server, names] of [
  [filesystemServer, ['@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem']],
  [gitServer, ['mcp-server-git', '@modelcontextprotocol/server-git']],
  [fetchServer, ['mcp-server-fetch', '@modelcontextprotocol/server-fetch']],
  [memoryServer, ['@modelcontextprotocol/server-memory', 'mcp-server-memory']],
  [githubServer, ['@modelcontextprotocol/server-github', 'mcp-server-github']],
] as const) {
  for (const name of names) KNOWN.set(name, server);
}

const normalise = (name: string) => name.toLowerCase().replace(/_/g, '-');

function unknownProfile(launcher: Launcher | null, env: Readonly<Record<string, string>>): SandboxProfile {
  const notes = [NO_PROFILE_NOTE];
  if (launcher !== null) {
    const { cache, hosts } = LAUNCHERS[launcher];
    notes.push(`it starts with ${launcher}, which also needs ${cache} under filesystem.write and ${hosts.join(', ')} under network.hosts`);
  }
  const names = Object.keys(env);
  if (names.length > 0) notes.push(`its configuration sets ${names.join(', ')}: list them under env.pass for the server to see them`);
  return { section: null, notes };
}

function buildSection(grants: Grants): Record<string, unknown> | null {
  const unique = (values: string[]) => [...new Set(values)];
  const section: Record<string, unknown> = {};
  if (grants.write.length > 0) section.filesystem = { write: unique(grants.write) };
  if (grants.pass.length > 0 || grants.secrets.size > 0) {
    section.env = { ...(grants.pass.length > 0 ? { pass: unique(grants.pass) } : {}), ...(grants.secrets.size > 0 ? { secrets: Object.fromEntries(grants.secrets) } : {}) };
  }
  if (grants.hosts.length > 0) section.network = { mode: 'hosts', hosts: unique(grants.hosts) };
  return Object.keys(section).length > 0 ? section : null;
}

/** The starting sandbox profile of a server entry, from its command line alone. */
export function deriveSandboxProfile(entry: ProfileEntry, options: ProfileOptions = {}): SandboxProfile {
  const env = entry.env ?? {};
  const launch = identifyLaunch(entry.command, entry.args);
  if (launch.kind === 'docker') {
    return {
      section: null,
      notes: [
        `${launch.runner} servers are not sandboxed by silas: the container is started by the ${launch.runner} daemon, outside the sandbox the proxy makes, and the proxy refuses to start it without one. Add --no-sandbox to its silas proxy arguments only if you consciously rely on the container's own isolation instead.`,
      ],
    };
  }
  const known = launch.names.map(normalise).find((name) => KNOWN.has(name));
  if (known === undefined) return unknownProfile(launch.launcher, env);
  const server = KNOWN.get(known)!;
  const grants: Grants = { write: [], pass: [], secrets: new Map(), hosts: [], notes: [] };
  const writable = (raw: string): string | null => {
    const absolute = raw.startsWith('~') || isAbsolute(raw) || /^[A-Za-z]:[\\/]/.test(raw);
    const path = absolute ? raw : options.cwd !== undefined ? resolve(options.cwd, raw) : null;
    if (path === null) {
      grants.notes.push(`"${raw}" is a relative path and where the client starts the server is unknown: list its full path under filesystem.write`);
      return null;
    }
    const normal = posix.normalize(path).replace(/(.)\/$/, '$1');
    const whole = normal === '/' || normal === '~' || (options.home !== undefined && resolve(normal) === resolve(options.home));
    if (whole) {
      grants.notes.push(`"${raw}" is the whole home folder or "/", which a sandbox never grants: list the folders inside it the server needs under filesystem.write`);
      return null;
    }
    // The same refusal the sandbox makes at start (server-sandbox.ts), so a proposed profile can start.
    const shared = normal.startsWith('/') ? socketTreeIn(normal) : undefined;
    if (shared !== undefined) {
      grants.notes.push(`"${raw}" contains ${shared}, where other programs keep their sockets, which a sandbox never grants: list a folder of its own inside it under filesystem.write`);
      return null;
    }
    grants.write.push(path);
    return path;
  };
  grants.notes.push(`recognised ${server.package}${launch.launcher !== null ? ` (started with ${launch.launcher})` : ''}`);
  server.grant(grants, { args: launch.args, env, launcher: launch.launcher, writable });
  if (launch.project !== undefined && writable(launch.project) !== null) grants.notes.push(`uv run syncs the project ${launch.project} (its .venv) when the server starts, so it is writable`);
  if (launch.launcher !== null) {
    const launcher = LAUNCHERS[launch.launcher];
    grants.write.push(launcher.cache);
    grants.hosts.push(...launcher.hosts);
    grants.notes.push(launcher.note);
  }
  const extra = Object.keys(env).filter((name) => !(server.handles ?? []).includes(name) && !grants.pass.includes(name));
  const passable = extra.filter((name) => ENV_NAME_PATTERN.test(name));
  if (passable.length > 0) {
    grants.pass.push(...passable);
    grants.notes.push(`passes ${passable.join(', ')}, set in the client's configuration`);
  }
  return { section: buildSection(grants), notes: grants.notes };
}
