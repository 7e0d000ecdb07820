import { join } from 'node:path';
import type * as Electron from 'electron';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { Notifier, Runtime } from '../app/types.js';
import { EventTargets, registerIpcTransport } from '../control/electron-ipc.js';
import type { ShellLogger } from './logger.js';
import { ElectronNotifier } from './notifier.js';
import { isCockpitUrl } from './origin.js';
import { denyAllPermissions } from './permissions.js';
import { registerAppScheme, serveCockpit } from './protocol.js';
import { createCockpitTray, type CockpitTray } from './tray.js';
import { createCockpitWindow } from './window.js';

/** The Electron modules the shell uses; main.ts passes the real ones, tests pass fakes. */
export type DesktopElectron = Pick<
  typeof Electron,
  'app' | 'BrowserWindow' | 'Menu' | 'Tray' | 'nativeImage' | 'Notification' | 'dialog' | 'ipcMain' | 'protocol' | 'session' | 'shell'
>;

export type BuildRuntime = (config: { home: string; mode: 'desktop' }, overrides?: { notifier?: Notifier; showCockpitWindow?: () => void }) => Promise<Runtime>;

export interface DesktopDeps {
  electron: DesktopElectron;
  buildRuntime: BuildRuntime;
  resolveHome: (flag?: string) => string;
  argv: readonly string[];
  signals: { on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown };
  platform: NodeJS.Platform;
  logger: ShellLogger;
}

export interface DesktopShell {
  /** Settles when startup finished or failed (failure already shown and exiting). */
  readonly ready: Promise<void>;
  quit(): Promise<void>;
}

/** Windows ties notifications to an application id; without one they are silently dropped. */
const APP_USER_MODEL_ID = 'org.silas.control-center';

/** Where the built bundle and resources sit relative to the app root (package.json). */
function desktopPaths(appRoot: string) {
  return {
    rendererDir: join(appRoot, 'out', 'renderer'),
    preload: join(appRoot, 'out', 'preload', 'index.cjs'),
    trayIcon: join(appRoot, 'resources', 'icons', 'tray.png'),
    appIcon: join(appRoot, 'resources', 'icons', 'app.png'),
  };
}

/** `--home DIR` or `--home=DIR`; undefined when absent. */
export function parseHomeArg(argv: readonly string[]): string | undefined {
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    if (arg.startsWith('--home=')) return requireHomeValue(arg.slice('--home='.length));
    if (arg === '--home') return requireHomeValue(argv[index + 1]);
  }
  return undefined;
}

function requireHomeValue(value: string | undefined): string {
  if (!value || value.startsWith('--')) {
    throw new SilasError(ErrorCode.Config, '--home needs a directory, e.g. --home ~/silas-home');
  }
  return value;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The desktop application's lifecycle: one instance, the cockpit served on app://, the runtime
 * started in-process, then the window and the tray. Closing the window keeps Silas in the tray;
 * only Quit (tray, OS quit, SIGINT, SIGTERM) stops the runtime and exits.
 */
export function runDesktop(deps: DesktopDeps): DesktopShell {
  const { electron, logger } = deps;
  const { app } = electron;

  // Privileges can only be granted before `ready`.
  registerAppScheme(electron.protocol);

  if (!app.requestSingleInstanceLock()) {
    logger.info('Silas is already running; focusing its window');
    app.quit();
    return { ready: Promise.resolve(), quit: () => Promise.resolve() };
  }

  const paths = desktopPaths(app.getAppPath());
  const targets = new EventTargets();
  let runtime: Runtime | null = null;
  let window: Electron.BrowserWindow | null = null;
  let tray: CockpitTray | null = null;
  let disposeIpc: (() => void) | null = null;
  let started = false;
  let starting: Promise<void> = Promise.resolve();
  let quitting: Promise<void> | null = null;

  function openCockpit(): void {
    if (!started || quitting) return;
    if (window === null || window.isDestroyed()) {
      window = createCockpitWindow({
        BrowserWindow: electron.BrowserWindow,
        shell: electron.shell,
        preloadPath: paths.preload,
        iconPath: paths.appIcon,
        hideOnClose: () => quitting === null,
        logger,
      });
      targets.add(window.webContents);
      return; // shown on 'ready-to-show'
    }
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  }

  function quit(): Promise<void> {
    quitting ??= (async () => {
      tray?.dispose();
      disposeIpc?.();
      // A runtime still being built holds the home lock and the database: let it finish, then stop it.
      await starting.catch(() => undefined);
      let code = 0;
      try {
        await runtime?.stop('quit');
      } catch (error) {
        logger.error('the runtime did not stop cleanly', error);
        code = 1;
      }
      app.exit(code);
    })();
    return quitting;
  }

  async function fail(error: unknown): Promise<void> {
    logger.error('startup failed', error);
    if (quitting) return; // quit() stops what was built and exits; no dialog for a start we abandoned
    electron.dialog.showErrorBox('Silas Control Center could not start', messageOf(error));
    try {
      await runtime?.stop('startup failed');
    } catch (stopError) {
      logger.error('the runtime did not stop cleanly after the failed start', stopError);
    }
    app.exit(1);
  }

  async function start(): Promise<void> {
    if (quitting) return;
    const home = deps.resolveHome(parseHomeArg(deps.argv));
    if (deps.platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);
    denyAllPermissions(electron.session.defaultSession, logger);
    serveCockpit(electron.protocol, paths.rendererDir, logger);

    const notifier = new ElectronNotifier({ Notification: electron.Notification, openCockpit, logger });
    // `silas open` against the desktop app brings this window forward, as the tray's "Open cockpit" does:
    // the desktop cockpit talks IPC and needs no credential (docs/control-plane.md "Getting back into the cockpit").
    runtime = await deps.buildRuntime({ home, mode: 'desktop' }, { notifier, showCockpitWindow: openCockpit });
    if (quitting) return;
    await runtime.start();
    if (quitting) return;

    disposeIpc = registerIpcTransport({
      ipcMain: electron.ipcMain,
      router: runtime.router,
      events: runtime.events,
      isTrustedSender: isCockpitUrl,
      targets,
    });
    started = true;
    openCockpit();
    tray = createCockpitTray({
      Tray: electron.Tray,
      Menu: electron.Menu,
      nativeImage: electron.nativeImage,
      iconPath: paths.trayIcon,
      decisions: runtime.decisions,
      openCockpit,
      quit: () => void quit(),
      logger,
    });
  }

  app.on('second-instance', openCockpit);
  app.on('activate', openCockpit);
  // Without a listener Electron quits when the last window closes; Silas stays in the tray.
  app.on('window-all-closed', function stayInTray() {});
  // Cmd+Q, logout and the like: stop the runtime gracefully first, then exit ourselves.
  app.on('before-quit', function stopRuntimeFirst(event) {
    if (quitting) return;
    event.preventDefault();
    void quit();
  });
  function onSignal(): void {
    if (quitting) {
      // A second Ctrl-C means "now": do not wait for a shutdown that seems stuck.
      logger.warn('second signal while stopping; exiting without waiting');
      app.exit(1);
      return;
    }
    void quit();
  }
  deps.signals.on('SIGINT', onSignal);
  deps.signals.on('SIGTERM', onSignal);

  const ready = app
    .whenReady()
    .then(() => {
      starting = start();
      return starting;
    })
    .catch(fail);
  return { ready, quit };
}
