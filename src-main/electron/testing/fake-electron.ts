import type { BrowserWindowConstructorOptions, MenuItem, MenuItemConstructorOptions } from 'electron';
import type { DesktopElectron } from '../desktop.js';

/*
 * An in-memory stand-in for the Electron APIs the shell uses, for unit tests on machines
 * where the Electron binary cannot be installed. It records what the shell asked for and
 * lets a test fire the events Electron would.
 */

type Listener = (...args: unknown[]) => unknown;

class FakeEmitter {
  private readonly listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  once(event: string, listener: Listener): this {
    const wrapper: Listener = (...args) => {
      this.removeListener(event, wrapper);
      return listener(...args);
    };
    return this.on(event, wrapper);
  }

  removeListener(event: string, listener: Listener): this {
    this.listeners.set(event, (this.listeners.get(event) ?? []).filter((l) => l !== listener));
    return this;
  }

  emit(event: string, ...args: unknown[]): boolean {
    const current = this.listeners.get(event) ?? [];
    for (const listener of current) listener(...args);
    return current.length > 0;
  }

  listenerCount(event: string): number {
    return (this.listeners.get(event) ?? []).length;
  }
}

export interface FakeEvent {
  preventDefault(): void;
  readonly defaultPrevented: boolean;
}

export function fakeEvent(): FakeEvent {
  let prevented = false;
  return {
    preventDefault: () => {
      prevented = true;
    },
    get defaultPrevented() {
      return prevented;
    },
  };
}

export class FakeWebContents extends FakeEmitter {
  url = '';
  destroyed = false;
  readonly sent: unknown[][] = [];
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;

  getURL(): string {
    return this.url;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  send(channel: string, ...args: unknown[]): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
    this.sent.push([channel, ...args]);
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
  /** Fires a preventable event the way Electron does and says whether the page prevented it. */
  fire(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', url = ''): boolean {
    const e = fakeEvent();
    this.emit(event, e, url);
    return e.defaultPrevented;
  }
}

type PermissionRequestHandler = (webContents: unknown, permission: string, callback: (granted: boolean) => void, details: unknown) => void;
type PermissionCheckHandler = (webContents: unknown, permission: string, requestingOrigin: string, details: unknown) => boolean;

export function createFakeElectron(options: { singleInstance?: boolean; notificationsSupported?: boolean; appPath?: string } = {}) {
  const windows: FakeBrowserWindow[] = [];
  const trays: FakeTray[] = [];
  const notifications: FakeNotification[] = [];
  const errorBoxes: Array<{ title: string; content: string }> = [];
  const opened: string[] = [];
  const exitCodes: number[] = [];
  let resolveReady: () => void = () => undefined;
  const readyPromise = new Promise<void>((resolve) => {
    resolveReady = resolve;
  });

  class FakeBrowserWindow extends FakeEmitter {
    readonly webContents = new FakeWebContents();
    loadedUrl: string | null = null;
    visible = false;
    focused = false;
    minimized = false;
    destroyed = false;
    constructor(readonly options: BrowserWindowConstructorOptions) {
      super();
      windows.push(this);
    }
    loadURL(url: string): Promise<void> {
      this.loadedUrl = url;
      this.webContents.url = url;
      return Promise.resolve();
    }
    show(): void {
      this.visible = true;
    }
    hide(): void {
      this.visible = false;
    }
    focus(): void {
      this.focused = true;
    }
    restore(): void {
      this.minimized = false;
    }
    isMinimized(): boolean {
      return this.minimized;
    }
    isDestroyed(): boolean {
      return this.destroyed;
    }
    /** What the user's close button does: 'close' is preventable, otherwise the window is gone. */
    close(): void {
      const e = fakeEvent();
      this.emit('close', e);
      if (!e.defaultPrevented) {
        this.destroyed = true;
        this.webContents.destroyed = true;
      }
    }
  }

  class FakeTray extends FakeEmitter {
    tooltip = '';
    menu: { template: MenuItemConstructorOptions[] } | null = null;
    destroyed = false;
    constructor(readonly image: unknown) {
      super();
      trays.push(this);
    }
    setToolTip(text: string): void {
      this.tooltip = text;
    }
    setContextMenu(menu: { template: MenuItemConstructorOptions[] } | null): void {
      this.menu = menu;
    }
    /** The current context-menu item with this id. */
    item(id: string): MenuItemConstructorOptions {
      const found = this.menu?.template.find((entry) => entry.id === id);
      if (!found) throw new Error(`no tray menu item "${id}"`);
      return found;
    }
    /** Clicks a context-menu item the way Electron does. */
    click(id: string): void {
      this.item(id).click?.({} as MenuItem, undefined, {});
    }
    destroy(): void {
      this.destroyed = true;
    }
    isDestroyed(): boolean {
      return this.destroyed;
    }
  }

  class FakeNotification extends FakeEmitter {
    static supported = options.notificationsSupported ?? true;
    shown = false;
    constructor(readonly options: Record<string, unknown>) {
      super();
      notifications.push(this);
    }
    static isSupported(): boolean {
      return FakeNotification.supported;
    }
    show(): void {
      this.shown = true;
    }
    close(): void {
      this.emit('close', fakeEvent());
    }
  }

  const session = {
    requestHandler: null as null | PermissionRequestHandler,
    checkHandler: null as null | PermissionCheckHandler,
    deviceHandler: null as null | ((details: unknown) => boolean),
    setPermissionRequestHandler(handler: PermissionRequestHandler) {
      this.requestHandler = handler;
    },
    setPermissionCheckHandler(handler: PermissionCheckHandler) {
      this.checkHandler = handler;
    },
    setDevicePermissionHandler(handler: (details: unknown) => boolean) {
      this.deviceHandler = handler;
    },
  };

  const protocol = {
    privileged: [] as unknown[],
    handlers: new Map<string, (request: Request) => Response | Promise<Response>>(),
    registerSchemesAsPrivileged(schemes: unknown[]) {
      this.privileged.push(...schemes);
    },
    handle(scheme: string, handler: (request: Request) => Response | Promise<Response>) {
      this.handlers.set(scheme, handler);
    },
    unhandle(scheme: string) {
      this.handlers.delete(scheme);
    },
  };

  const ipcMain = {
    handlers: new Map<string, (event: unknown, ...args: unknown[]) => unknown>(),
    handle(channel: string, listener: (event: unknown, ...args: unknown[]) => unknown) {
      // Electron refuses a second handler on the same channel.
      if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      this.handlers.set(channel, listener);
    },
    removeHandler(channel: string) {
      this.handlers.delete(channel);
    },
  };

  const app = Object.assign(new FakeEmitter(), {
    quitCalled: false,
    userModelId: null as string | null,
    requestSingleInstanceLock: () => options.singleInstance ?? true,
    quit() {
      app.quitCalled = true;
    },
    exit(code = 0) {
      exitCodes.push(code);
    },
    whenReady: () => readyPromise,
    getAppPath: () => options.appPath ?? '/opt/silas',
    setAppUserModelId(id: string) {
      app.userModelId = id;
    },
  });

  const electron = {
    app,
    BrowserWindow: FakeBrowserWindow,
    Tray: FakeTray,
    Notification: FakeNotification,
    Menu: { buildFromTemplate: (template: MenuItemConstructorOptions[]) => ({ template }) },
    nativeImage: { createFromPath: (path: string) => ({ path, isEmpty: () => false }) },
    dialog: {
      showErrorBox(title: string, content: string) {
        errorBoxes.push({ title, content });
      },
    },
    ipcMain,
    protocol,
    session: { defaultSession: session },
    shell: {
      openExternal(url: string) {
        opened.push(url);
        return Promise.resolve();
      },
    },
  };

  return {
    /** The fakes, typed as the real modules for code under test. */
    electron: electron as unknown as DesktopElectron,
    fakes: electron,
    windows,
    trays,
    notifications,
    errorBoxes,
    opened,
    exitCodes,
    markReady: () => resolveReady(),
  };
}

/** A logger that keeps lines for assertions. */
export function memoryLogger() {
  const lines: Array<{ level: 'info' | 'warn' | 'error'; message: string }> = [];
  return {
    lines,
    info: (message: string) => void lines.push({ level: 'info', message }),
    warn: (message: string) => void lines.push({ level: 'warn', message }),
    error: (message: string) => void lines.push({ level: 'error', message }),
  };
}
