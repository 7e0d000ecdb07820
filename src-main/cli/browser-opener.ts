import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Opens a URL in the person's browser; resolves false when the opener could not be started. */
export type BrowserOpener = (url: string) => Promise<boolean>;

/**
 * The desktop's own way to open a URL, or null where there is none (no display on Linux, no
 * xdg-open): `silas open` then only prints the link. The URL goes to the opener as an argument,
 * as it would when the person clicks the printed link in a terminal.
 */
export function desktopBrowserOpener(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): BrowserOpener | null {
  if (platform === 'darwin') return (url) => launch('open', [url], env);
  if (platform === 'win32') return (url) => launch('rundll32', ['url.dll,FileProtocolHandler', url], env);
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  const xdgOpen = onPath('xdg-open', env.PATH ?? '');
  return xdgOpen ? (url) => launch(xdgOpen, [url], env) : null;
}

function onPath(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; next directory
    }
  }
  return null;
}

function launch(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
