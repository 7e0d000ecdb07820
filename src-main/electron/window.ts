import type { BrowserWindow, Shell, WebContents, WebPreferences } from 'electron';
import type { ShellLogger } from './logger.js';
import { COCKPIT_INDEX_URL, isCockpitUrl, isHttpsUrl } from './origin.js';

/**
 * The renderer gets no Node, no shared JS world with the preload, a Chromium sandbox, and
 * full web security; the preload bridge is its only way to reach the runtime (docs/architecture.md §4.6).
 */
function cockpitWebPreferences(preloadPath: string): WebPreferences {
  return {
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    preload: preloadPath,
  };
}

/**
 * Keeps the cockpit's webContents on app://cockpit/ for its whole life: the bridge trusts
 * whatever page is loaded there, so no navigation, redirect, popup or <webview> may replace it.
 */
function lockDownWebContents(webContents: WebContents, shell: Pick<Shell, 'openExternal'>, logger: ShellLogger): void {
  webContents.on('will-navigate', function refuseForeignNavigation(event, url) {
    if (isCockpitUrl(url)) return;
    event.preventDefault();
    logger.warn(`blocked navigation to ${url}`);
  });
  webContents.on('will-redirect', function refuseForeignRedirect(event, url) {
    if (isCockpitUrl(url)) return;
    event.preventDefault();
    logger.warn(`blocked redirect to ${url}`);
  });
  webContents.on('will-attach-webview', function refuseWebview(event) {
    event.preventDefault();
    logger.warn('blocked a <webview>');
  });
  webContents.setWindowOpenHandler(function denyWindowOpen({ url }) {
    // Links to documentation and the like open in the person's browser, never inside the app.
    if (isHttpsUrl(url)) {
      shell.openExternal(url).catch((error: unknown) => logger.warn(`could not open ${url} externally`, error));
    } else {
      logger.warn(`blocked window.open of ${url}`);
    }
    return { action: 'deny' };
  });
}

export interface CockpitWindowOptions {
  BrowserWindow: typeof BrowserWindow;
  shell: Pick<Shell, 'openExternal'>;
  preloadPath: string;
  iconPath?: string;
  /** While true, closing the window only hides it: the app lives on in the tray. */
  hideOnClose: () => boolean;
  logger: ShellLogger;
}

export function createCockpitWindow(options: CockpitWindowOptions): BrowserWindow {
  const window = new options.BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 880,
    minHeight: 560,
    show: false,
    title: 'Silas Control Center',
    backgroundColor: '#0f1419',
    ...(options.iconPath ? { icon: options.iconPath } : {}),
    webPreferences: cockpitWebPreferences(options.preloadPath),
  });
  lockDownWebContents(window.webContents, options.shell, options.logger);

  // Shown once painted, so the person never sees an empty white frame.
  window.once('ready-to-show', function showWhenPainted() {
    window.show();
  });
  window.on('close', function hideInsteadOfClosing(event) {
    if (!options.hideOnClose()) return;
    event.preventDefault();
    window.hide();
  });

  window.loadURL(COCKPIT_INDEX_URL).catch((error: unknown) => options.logger.error(`could not load ${COCKPIT_INDEX_URL}`, error));
  return window;
}
