import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, type BridgeEventListener, type SilasBridge } from '../../src-shared/contract/bridge.js';
import { calls, type CallName } from '../../src-shared/contract/calls.js';
import { fail } from '../../src-shared/contract/envelope.js';
import { isEventName } from '../../src-shared/contract/events.js';
import { ErrorCode } from '../../src-shared/errors.js';

/** The part of Electron's `ipcRenderer` the bridge uses. It never leaves this module. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/**
 * Builds `window.silas`: one function per contract call (names taken from `calls`, so a new
 * call needs no change here) and `onEvent`. Only plain functions cross the context bridge;
 * the renderer never gets `ipcRenderer`, a channel name, or Electron's event object.
 */
export function buildSilasBridge(ipcRenderer: IpcRendererLike): SilasBridge {
  const bridge: Record<string, unknown> = {};

  for (const name of Object.keys(calls) as CallName[]) {
    bridge[name] = function callRuntime(args: unknown): Promise<unknown> {
      // No handler (the runtime is shutting down) rejects inside Electron; the renderer still
      // gets an envelope, as on every other transport.
      return ipcRenderer
        .invoke(IPC_CALL_CHANNEL, name, args)
        .catch(() => fail(ErrorCode.Unavailable, `${name}: the Silas runtime is not answering; it may be shutting down`));
    };
  }

  bridge.onEvent = function onEvent(listener: BridgeEventListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('silas.onEvent needs a function');
    const relay = (_event: unknown, name: unknown, payload: unknown): void => {
      if (isEventName(name)) listener(name, payload);
    };
    ipcRenderer.on(IPC_EVENT_CHANNEL, relay);
    let subscribed = true;
    return function unsubscribe(): void {
      if (!subscribed) return;
      subscribed = false;
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, relay);
    };
  };

  return Object.freeze(bridge) as unknown as SilasBridge;
}
