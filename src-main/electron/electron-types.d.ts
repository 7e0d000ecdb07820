/*
 * Minimal declarations of exactly the Electron (45) APIs the desktop shell and preload use.
 * `electron` is an optional dependency that cannot be installed on our build machines, yet
 * the shell must typecheck there. Signatures mirror Electron's own electron.d.ts (`unknown`
 * where Electron says `any`), so the code also typechecks against the real package when it is
 * installed: its declarations then merge with these, and the project's `skipLibCheck` keeps
 * the duplicates quiet. When code starts using another Electron API, add it here with
 * Electron's signature.
 */
declare module 'electron' {
  type Event<Params extends object = object> = {
    preventDefault: () => void;
    readonly defaultPrevented: boolean;
  } & Params;

  // ---- app -------------------------------------------------------------------------------

  interface App {
    requestSingleInstanceLock(additionalData?: Record<string, unknown>): boolean;
    quit(): void;
    exit(exitCode?: number): void;
    whenReady(): Promise<void>;
    getAppPath(): string;
    setAppUserModelId(id: string): void;
    on(event: 'second-instance', listener: (event: Event, argv: string[], workingDirectory: string, additionalData: unknown) => void): this;
    on(event: 'activate', listener: (event: Event, hasVisibleWindows: boolean) => void): this;
    on(event: 'window-all-closed', listener: () => void): this;
    on(event: 'before-quit', listener: (event: Event) => void): this;
  }
  const app: App;

  // ---- windows and web contents -------------------------------------------------------------

  interface WebPreferences {
    preload?: string;
    sandbox?: boolean;
    nodeIntegration?: boolean;
    nodeIntegrationInWorker?: boolean;
    contextIsolation?: boolean;
    webSecurity?: boolean;
    allowRunningInsecureContent?: boolean;
  }

  interface BrowserWindowConstructorOptions {
    width?: number;
    height?: number;
    minWidth?: number;
    minHeight?: number;
    show?: boolean;
    title?: string;
    backgroundColor?: string;
    icon?: NativeImage | string;
    webPreferences?: WebPreferences;
  }

  interface HandlerDetails {
    url: string;
    frameName: string;
    features: string;
    disposition: 'default' | 'foreground-tab' | 'background-tab' | 'new-window' | 'other';
  }

  interface WindowOpenHandlerResponse {
    action: 'allow' | 'deny';
  }

  interface WebContentsWillNavigateEventParams {
    url: string;
    isSameDocument: boolean;
    isMainFrame: boolean;
  }

  interface WebContentsWillRedirectEventParams {
    url: string;
    isSameDocument: boolean;
    isMainFrame: boolean;
  }

  class WebContents {
    readonly id: number;
    on(event: 'will-navigate', listener: (details: Event<WebContentsWillNavigateEventParams>, url: string, isInPlace: boolean, isMainFrame: boolean, frameProcessId: number, frameRoutingId: number) => void): this;
    on(event: 'will-redirect', listener: (details: Event<WebContentsWillRedirectEventParams>, url: string, isInPlace: boolean, isMainFrame: boolean, frameProcessId: number, frameRoutingId: number) => void): this;
    on(event: 'will-attach-webview', listener: (event: Event, webPreferences: WebPreferences, params: Record<string, string>) => void): this;
    setWindowOpenHandler(handler: (details: HandlerDetails) => WindowOpenHandlerResponse): void;
    getURL(): string;
    isDestroyed(): boolean;
    send(channel: string, ...args: unknown[]): void;
  }

  class BrowserWindow {
    constructor(options?: BrowserWindowConstructorOptions);
    readonly webContents: WebContents;
    loadURL(url: string): Promise<void>;
    show(): void;
    hide(): void;
    focus(): void;
    restore(): void;
    isMinimized(): boolean;
    isDestroyed(): boolean;
    on(event: 'close', listener: (event: Event) => void): this;
    once(event: 'ready-to-show', listener: () => void): this;
  }

  interface WebFrameMain {
    readonly url: string;
  }

  // ---- session, protocol, shell ----------------------------------------------------------------

  type PermissionName = string;

  class Session {
    static defaultSession: Session;
    setPermissionRequestHandler(handler: ((webContents: WebContents, permission: PermissionName, callback: (permissionGranted: boolean) => void, details: unknown) => void) | null): void;
    setPermissionCheckHandler(handler: ((webContents: WebContents | null, permission: PermissionName, requestingOrigin: string, details: unknown) => boolean) | null): void;
    setDevicePermissionHandler(handler: ((details: unknown) => boolean) | null): void;
  }
  const session: typeof Session;

  interface Privileges {
    standard?: boolean;
    secure?: boolean;
    bypassCSP?: boolean;
    allowServiceWorkers?: boolean;
    supportFetchAPI?: boolean;
    corsEnabled?: boolean;
    stream?: boolean;
  }

  interface CustomScheme {
    scheme: string;
    privileges?: Privileges;
  }

  interface Protocol {
    registerSchemesAsPrivileged(customSchemes: CustomScheme[]): void;
    handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
    unhandle(scheme: string): void;
  }
  const protocol: Protocol;

  interface Shell {
    openExternal(url: string, options?: { activate?: boolean }): Promise<void>;
  }
  const shell: Shell;

  interface Dialog {
    showErrorBox(title: string, content: string): void;
  }
  const dialog: Dialog;

  // ---- tray, menu, images, notifications ----------------------------------------------------------

  class NativeImage {
    static createFromPath(path: string): NativeImage;
    isEmpty(): boolean;
  }
  const nativeImage: typeof NativeImage;

  class MenuItem {
    checked: boolean;
  }

  interface MenuItemConstructorOptions {
    id?: string;
    label?: string;
    type?: 'normal' | 'separator' | 'submenu' | 'checkbox' | 'radio' | 'header' | 'palette';
    checked?: boolean;
    enabled?: boolean;
    click?: (menuItem: MenuItem, window: BrowserWindow | undefined, event: unknown) => void;
  }

  class Menu {
    static buildFromTemplate(template: Array<MenuItemConstructorOptions | MenuItem>): Menu;
  }

  class Tray {
    constructor(image: NativeImage | string, guid?: string);
    setToolTip(toolTip: string): void;
    setContextMenu(menu: Menu | null): void;
    on(event: 'click', listener: (event: unknown, bounds: unknown, position: unknown) => void): this;
    destroy(): void;
    isDestroyed(): boolean;
  }

  interface NotificationConstructorOptions {
    title?: string;
    body?: string;
    silent?: boolean;
    urgency?: 'normal' | 'critical' | 'low';
  }

  class Notification {
    constructor(options?: NotificationConstructorOptions);
    static isSupported(): boolean;
    show(): void;
    close(): void;
    on(event: 'click', listener: (event: Event) => void): this;
    on(event: 'close', listener: (details: Event) => void): this;
    on(event: 'failed', listener: (event: Event, error: string) => void): this;
  }

  // ---- IPC -----------------------------------------------------------------------------------------

  interface IpcMainInvokeEvent extends Event {
    readonly senderFrame: WebFrameMain | null;
    sender: WebContents;
  }

  interface IpcMain {
    handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void;
    removeHandler(channel: string): void;
  }
  const ipcMain: IpcMain;

  interface IpcRendererEvent extends Event {
    sender: IpcRenderer;
  }

  interface IpcRenderer {
    invoke(channel: string, ...args: unknown[]): Promise<unknown>;
    on(channel: string, listener: (event: IpcRendererEvent, ...args: unknown[]) => void): this;
    removeListener(channel: string, listener: (...args: never[]) => void): this;
  }
  const ipcRenderer: IpcRenderer;

  interface ContextBridge {
    exposeInMainWorld(apiKey: string, api: unknown): void;
  }
  const contextBridge: ContextBridge;
}
