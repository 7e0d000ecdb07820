import type { CallArgs, CallName, CallResult } from './calls.js';
import type { Envelope } from './envelope.js';
import type { EventName } from './events.js';

/** The IPC channel names. Kept here so preload and main cannot drift apart. */
export const IPC_CALL_CHANNEL = 'silas:call';
export const IPC_EVENT_CHANNEL = 'silas:event';

/** Name of the global the preload exposes in the renderer: `window.silas`. */
export const BRIDGE_GLOBAL = 'silas';

export type BridgeEventListener = (name: EventName, payload: unknown) => void;

/**
 * What the preload exposes: one named function per contract call, plus one subscription that
 * returns its unsubscribe function. Never `ipcRenderer` itself (docs/architecture.md §4.2).
 */
export type SilasBridge = { readonly [N in CallName]: (args: CallArgs<N>) => Promise<Envelope<CallResult<N>>> } & {
  readonly onEvent: (listener: BridgeEventListener) => () => void;
};
