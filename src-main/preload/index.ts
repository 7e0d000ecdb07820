import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_GLOBAL } from '../../src-shared/contract/bridge.js';
import { buildSilasBridge } from './bridge.js';

// Runs in the sandboxed, context-isolated preload of the cockpit window (bundled to
// out/preload/index.cjs). The bridge object is the renderer's only door to the runtime.
contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, buildSilasBridge(ipcRenderer));
