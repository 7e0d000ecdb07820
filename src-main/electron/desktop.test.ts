import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../src-shared/contract/bridge.js';
import { ok } from '../../src-shared/contract/envelope.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { DecisionQueue, Notifier, Runtime } from '../app/types.js';
import { EventBus } from '../control/event-bus.js';
import { parseHomeArg, runDesktop, type BuildRuntime } from './desktop.js';
import { ElectronNotifier } from './notifier.js';
import { createFakeElectron, fakeEvent, memoryLogger } from './testing/fake-electron.js';

function fakeRuntime(log: string[], options: { startError?: Error; stopError?: Error } = {}) {
  const decisions: DecisionQueue = { pendingCount: () => 2, isPaused: () => false, setPaused: () => undefined, subscribe: () => () => undefined };
  const events = new EventBus();
  const runtime = {
    mode: 'desktop',
    home: '/data/silas',
    events,
    decisions,
    router: { dispatch: async (name: unknown) => ok({ name }) },
    cockpit: null,
    async start() {
      log.push('start');
      if (options.startError) throw options.startError;
    },
    async stop(reason: string) {
      log.push(`stop:${reason}`);
      if (options.stopError) throw options.stopError;
    },
  };
  return runtime as unknown as Runtime & { events: EventBus };
}

interface SetupOptions {
  argv?: string[];
  singleInstance?: boolean;
  platform?: NodeJS.Platform;
  buildRuntime?: BuildRuntime;
  startError?: Error;
  stopError?: Error;
}

function setup(options: SetupOptions = {}) {
  const fake = createFakeElectron({ singleInstance: options.singleInstance ?? true, appPath: '/opt/silas' });
  const log: string[] = [];
  const signals = new EventEmitter();
  const built: Array<{ config: unknown; notifier: Notifier | undefined }> = [];
  const homes: Array<string | undefined> = [];
  const runtime = fakeRuntime(log, options);
  const buildRuntime: BuildRuntime =
    options.buildRuntime ??
    (async (config, overrides) => {
      built.push({ config, notifier: overrides?.notifier });
      return runtime;
    });
  const shell = runDesktop({
    electron: fake.electron,
    buildRuntime,
    resolveHome: (flag) => {
      homes.push(flag);
      return flag ?? '/home/me/.local/share/silas';
    },
    argv: options.argv ?? ['/usr/bin/electron', '.'],
    signals,
    platform: options.platform ?? 'linux',
    logger: memoryLogger(),
  });
  const origExit = fake.fakes.app.exit;
  fake.fakes.app.exit = (code?: number) => {
    log.push(`exit:${code ?? 0}`);
    origExit(code);
  };
  return { fake, log, signals, built, homes, runtime, shell };
}

async function started(options: SetupOptions = {}) {
  const context = setup(options);
  context.fake.markReady();
  await context.shell.ready;
  return context;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('parseHomeArg', () => {
  it('reads --home DIR and --home=DIR', () => {
    expect(parseHomeArg(['electron', '.', '--home', '/data/a'])).toBe('/data/a');
    expect(parseHomeArg(['electron', '.', '--home=/data/b'])).toBe('/data/b');
    expect(parseHomeArg(['electron', '.'])).toBeUndefined();
  });

  it('refuses --home without a directory', () => {
    expect(() => parseHomeArg(['electron', '--home'])).toThrow(/--home needs a directory/);
    expect(() => parseHomeArg(['electron', '--home', '--inspect'])).toThrow(SilasError);
    expect(() => parseHomeArg(['electron', '--home='])).toThrow(SilasError);
  });
});

describe('desktop startup', () => {
  it('registers the app scheme as privileged before ready', () => {
    const { fake, built } = setup();
    expect(fake.fakes.protocol.privileged).toHaveLength(1);
    expect(fake.fakes.protocol.handlers.size).toBe(0);
    expect(built).toHaveLength(0);
  });

  it('a second instance quits at once and starts nothing', async () => {
    const { fake, built, shell } = setup({ singleInstance: false });
    fake.markReady();
    await shell.ready;
    await flush();
    expect(fake.fakes.app.quitCalled).toBe(true);
    expect(built).toHaveLength(0);
    expect(fake.windows).toHaveLength(0);
  });

  it('on ready: permissions, protocol, runtime, IPC, window, tray — in that order of need', async () => {
    const { fake, built, homes, log } = await started({ argv: ['/usr/bin/electron', '.', '--home', '/data/silas'] });
    expect(homes).toEqual(['/data/silas']);
    expect(fake.fakes.session.defaultSession.checkHandler).not.toBeNull();
    expect(fake.fakes.protocol.handlers.has('app')).toBe(true);
    expect(built).toHaveLength(1);
    expect(built[0]!.config).toEqual({ home: '/data/silas', mode: 'desktop' });
    expect(built[0]!.notifier).toBeInstanceOf(ElectronNotifier);
    expect(log).toEqual(['start']);
    expect(fake.fakes.ipcMain.handlers.has(IPC_CALL_CHANNEL)).toBe(true);
    expect(fake.windows).toHaveLength(1);
    expect(fake.windows[0]!.options.webPreferences?.preload).toBe('/opt/silas/out/preload/index.cjs');
    expect(fake.windows[0]!.loadedUrl).toBe('app://cockpit/index.html');
    expect(fake.trays).toHaveLength(1);
    expect(fake.trays[0]!.tooltip).toBe('Silas — 2 pending decisions');
    expect(fake.fakes.app.userModelId).toBeNull();
  });

  it('sets the app user model id on Windows so notifications show', async () => {
    const { fake } = await started({ platform: 'win32' });
    expect(fake.fakes.app.userModelId).toBe('org.silas.control-center');
  });

  it('answers cockpit IPC calls and forwards runtime events to the window', async () => {
    const { fake, runtime } = await started();
    const handler = fake.fakes.ipcMain.handlers.get(IPC_CALL_CHANNEL)!;
    expect(await handler({ senderFrame: { url: 'app://cockpit/index.html' } }, 'runtime.info', {})).toEqual(ok({ name: 'runtime.info' }));
    expect(await handler({ senderFrame: { url: 'https://evil.example/' } }, 'runtime.info', {})).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    runtime.events.publish('runtime.stopping', { reason: 'test' });
    expect(fake.windows[0]!.webContents.sent).toEqual([[IPC_EVENT_CHANNEL, 'runtime.stopping', { reason: 'test' }]]);
  });
});

describe('desktop window life', () => {
  it('closing the window keeps the app in the tray; a second launch brings it back', async () => {
    const { fake, log } = await started();
    const window = fake.windows[0]!;
    window.emit('ready-to-show');
    window.close();
    expect(window.isDestroyed()).toBe(false);
    expect(window.visible).toBe(false);
    expect(log).toEqual(['start']);
    window.minimized = true;
    fake.fakes.app.emit('second-instance', fakeEvent(), [], '/');
    expect(window.visible).toBe(true);
    expect(window.focused).toBe(true);
    expect(window.minimized).toBe(false);
  });

  it('"Open cockpit" recreates a window that was destroyed', async () => {
    const { fake } = await started();
    fake.windows[0]!.destroyed = true;
    fake.trays[0]!.click('open');
    expect(fake.windows).toHaveLength(2);
    fake.fakes.app.emit('activate');
    expect(fake.windows).toHaveLength(2);
  });

  it('`silas open` against the desktop app brings the cockpit window back, as "Open cockpit" does', async () => {
    let showCockpitWindow: (() => void) | undefined;
    const log: string[] = [];
    const { fake } = await started({
      buildRuntime: async (_config, overrides) => {
        showCockpitWindow = overrides?.showCockpitWindow;
        return fakeRuntime(log);
      },
    });
    expect(showCockpitWindow).toBeTypeOf('function');
    fake.windows[0]!.destroyed = true;
    showCockpitWindow!();
    expect(fake.windows).toHaveLength(2);
    const window = fake.windows[1]!;
    window.emit('ready-to-show');
    window.close();
    showCockpitWindow!();
    expect([window.visible, window.focused]).toEqual([true, true]);
  });
});

describe('desktop quit', () => {
  it('Quit in the tray stops the runtime, then exits 0', async () => {
    const { fake, log } = await started();
    fake.trays[0]!.click('quit');
    await flush();
    expect(log).toEqual(['start', 'stop:quit', 'exit:0']);
    expect(fake.trays[0]!.destroyed).toBe(true);
    expect(fake.fakes.ipcMain.handlers.size).toBe(0);
    // Once quitting, closing the window really closes it.
    fake.windows[0]!.close();
    expect(fake.windows[0]!.isDestroyed()).toBe(true);
  });

  it.each(['SIGINT', 'SIGTERM'])('%s stops the runtime, then exits 0', async (signal) => {
    const { signals, log } = await started();
    signals.emit(signal);
    await flush();
    expect(log).toEqual(['start', 'stop:quit', 'exit:0']);
  });

  it('a second signal while stopping exits at once', async () => {
    const { signals, log, runtime } = await started();
    runtime.stop = () => new Promise(() => undefined);
    signals.emit('SIGINT');
    signals.emit('SIGINT');
    await flush();
    expect(log).toEqual(['start', 'exit:1']);
  });

  it('an OS quit (before-quit) is held until the runtime stopped', async () => {
    const { fake, log } = await started();
    const event = fakeEvent();
    fake.fakes.app.emit('before-quit', event);
    expect(event.defaultPrevented).toBe(true);
    await flush();
    expect(log).toEqual(['start', 'stop:quit', 'exit:0']);
  });

  it('exits 1 when the runtime does not stop cleanly', async () => {
    const { signals, log } = await started({ stopError: new Error('disk full') });
    signals.emit('SIGTERM');
    await flush();
    expect(log).toEqual(['start', 'stop:quit', 'exit:1']);
  });

  it('a signal during startup lets the build finish, then stops it without starting it', async () => {
    let finishBuild: (runtime: Runtime) => void = () => undefined;
    const context = setup({ buildRuntime: () => new Promise((resolve) => (finishBuild = resolve)) });
    context.fake.markReady();
    await flush();
    context.signals.emit('SIGTERM');
    await flush();
    expect(context.log).toEqual([]);
    finishBuild(context.runtime);
    await context.shell.ready;
    await flush();
    expect(context.log).toEqual(['stop:quit', 'exit:0']);
    expect(context.fake.windows).toHaveLength(0);
    expect(context.fake.errorBoxes).toHaveLength(0);
  });
});

describe('desktop fatal startup errors', () => {
  it('shows the error message in a dialog and exits 1 (keyring unavailable)', async () => {
    const message = 'the OS keyring is not available; on Linux start gnome-keyring or use `silas start --headless`';
    const { fake, log } = await started({
      buildRuntime: async () => {
        throw new SilasError(ErrorCode.Keyring, message);
      },
    });
    expect(fake.errorBoxes).toEqual([{ title: 'Silas Control Center could not start', content: message }]);
    expect(log).toEqual(['exit:1']);
    expect(fake.windows).toHaveLength(0);
    expect(fake.trays).toHaveLength(0);
  });

  it('stops a runtime whose start failed, then exits 1', async () => {
    const { fake, log } = await started({ startError: new Error('database is locked') });
    expect(fake.errorBoxes[0]!.content).toBe('database is locked');
    expect(log).toEqual(['start', 'stop:startup failed', 'exit:1']);
  });

  it('reports a bad --home the same way', async () => {
    const { fake, log, built } = await started({ argv: ['/usr/bin/electron', '.', '--home'] });
    expect(fake.errorBoxes[0]!.content).toMatch(/--home needs a directory/);
    expect(built).toHaveLength(0);
    expect(log).toEqual(['exit:1']);
  });
});
