import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './io.js';

export type DesktopAvailability = { available: true; electronBinary: string; mainEntry: string } | { available: false; reason: string };

const DESKTOP_ENTRY = fileURLToPath(new URL('../../out/main/index.js', import.meta.url));

/** Electron is optional: without its binary (or a display, or the desktop build) we run headless. */
export function desktopAvailability(env: NodeJS.ProcessEnv, entry: string = DESKTOP_ENTRY): DesktopAvailability {
  let binary: unknown;
  try {
    binary = createRequire(import.meta.url)('electron');
  } catch {
    return { available: false, reason: 'Electron is not installed (it is optional); the cockpit is served to your browser instead.' };
  }
  if (typeof binary !== 'string' || !existsSync(binary)) {
    return { available: false, reason: 'the Electron package is present but its binary is missing; the cockpit is served to your browser instead.' };
  }
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { available: false, reason: 'no display ($DISPLAY / $WAYLAND_DISPLAY unset); the cockpit is served to your browser instead.' };
  }
  if (!existsSync(entry)) {
    return { available: false, reason: 'the desktop build is missing (run `npm run build:desktop`); the cockpit is served to your browser instead.' };
  }
  return { available: true, electronBinary: binary, mainEntry: entry };
}

/** Runs the desktop shell in its own Electron process and mirrors its exit code. */
export function launchDesktop(desktop: Extract<DesktopAvailability, { available: true }>, home: string, io: CliIo): Promise<number> {
  io.out(`Starting the Silas desktop app (home ${home})…`);
  const child = spawn(desktop.electronBinary, [desktop.mainEntry, '--home', home], { stdio: 'inherit', env: io.env });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? 1);
    });
  });
}
