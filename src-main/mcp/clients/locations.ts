import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/*
 * The agent clients whose MCP configuration `silas clients` knows, and where each keeps it on
 * Linux, macOS and Windows. Pure: the platform, environment and home directory are arguments.
 */

export type ClientId = 'claude-desktop' | 'cursor' | 'vscode' | 'windsurf';

export interface ClientSpec {
  /** A ClientId for the known clients. */
  id: string;
  label: string;
  /** Other names accepted on the command line. */
  aliases: readonly string[];
  /** JSONC (comments, trailing commas) is accepted only where the client itself accepts it. */
  jsonc: boolean;
  /** Where the server map sits, tried in order: e.g. [['mcpServers']] or [['servers'], ['mcp', 'servers']]. */
  serverPaths: readonly (readonly string[])[];
  /** A stdio entry's `env` object is passed to the server: wrap writes there what the proxy needs (entry-env.ts). */
  stdioEnv?: boolean;
}

export const CLIENTS: readonly (ClientSpec & { id: ClientId })[] = [
  { id: 'claude-desktop', label: 'Claude Desktop', aliases: ['claude'], jsonc: false, serverPaths: [['mcpServers']], stdioEnv: true },
  { id: 'cursor', label: 'Cursor', aliases: [], jsonc: false, serverPaths: [['mcpServers']], stdioEnv: true },
  // VS Code reads every settings file as JSONC. The user-level `mcp.json` holds `servers`; an
  // older `settings.json` given with --config holds them under `mcp.servers`.
  { id: 'vscode', label: 'VS Code', aliases: ['code'], jsonc: true, serverPaths: [['servers'], ['mcp', 'servers']], stdioEnv: true },
  { id: 'windsurf', label: 'Windsurf', aliases: [], jsonc: false, serverPaths: [['mcpServers']], stdioEnv: true },
];

export function findClient(name: string): ClientSpec | undefined {
  const wanted = name.toLowerCase();
  return CLIENTS.find((c) => c.id === wanted || c.aliases.includes(wanted));
}

export function knownClientNames(): string {
  return CLIENTS.map((c) => (c.aliases.length > 0 ? `${c.id} (or ${c.aliases.join(', ')})` : c.id)).join(', ');
}

export interface LocationContext {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** The user's home directory. */
  home: string;
}

/** The running process's context; HOME / USERPROFILE in `env` win over the OS answer (tests set them). */
export function currentLocationContext(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): LocationContext {
  const fromEnv = platform === 'win32' ? env.USERPROFILE : env.HOME;
  return { platform, env, home: fromEnv && fromEnv.length > 0 ? fromEnv : homedir() };
}

/** The configuration file of a client on a platform. */
export function configLocation(client: ClientId, ctx: LocationContext): string {
  const path = ctx.platform === 'win32' ? win32 : posix;
  const home = ctx.home;
  // The per-user application-settings directory: %APPDATA%, ~/Library/Application Support, $XDG_CONFIG_HOME.
  let appData: string;
  if (ctx.platform === 'win32') appData = nonEmpty(ctx.env.APPDATA) ?? path.join(home, 'AppData', 'Roaming');
  else if (ctx.platform === 'darwin') appData = path.join(home, 'Library', 'Application Support');
  else {
    const xdg = nonEmpty(ctx.env.XDG_CONFIG_HOME);
    // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
    appData = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config');
  }
  switch (client) {
    case 'claude-desktop':
      return path.join(appData, 'Claude', 'claude_desktop_config.json');
    case 'cursor':
      return path.join(home, '.cursor', 'mcp.json');
    case 'vscode':
      return path.join(appData, 'Code', 'User', 'mcp.json');
    case 'windsurf':
      return path.join(home, '.codeium', 'windsurf', 'mcp_config.json');
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.length > 0 ? value : undefined;
}
