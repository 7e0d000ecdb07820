import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, Notification, protocol, session, shell, Tray } from 'electron';
import { resolveHome } from '../home/paths.js';
import { buildRuntime } from '../app/runtime.js';
import { runDesktop } from './desktop.js';
import { consoleShellLogger } from './logger.js';

// Desktop entry, bundled by electron-vite into out/main/index.js. All behaviour lives in
// desktop.ts so it can be tested without the Electron binary; this file only wires the real modules.
runDesktop({
  electron: { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, Notification, protocol, session, shell, Tray },
  buildRuntime,
  resolveHome: (flag) => resolveHome(flag),
  argv: process.argv,
  signals: process,
  platform: process.platform,
  logger: consoleShellLogger,
});
