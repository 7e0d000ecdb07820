import { takeToken } from './token.js';
import { IpcTransport } from './ipc-transport.js';
import type { ScopeStorage } from './stream-scope.js';
import { createDisconnectedTransport, type Transport } from './transport.js';
import { CockpitSocketClient, webSocketUrl } from './socket-client.js';

// Not control.json: its token is the ask credential, refused by the cockpit (docs/control-plane.md).
export const NO_TOKEN_REASON =
  'No token. Run `silas open` in a terminal (it prints a fresh link; it needs your OS keyring), or open the URL `silas start` printed.';

type StorageLike = Pick<Storage, 'getItem' | 'setItem'>;

/** sessionStorage access itself throws when storage is disabled; fall back to nothing kept. */
function sessionStorageOf(win: Window): StorageLike {
  try {
    return win.sessionStorage;
  } catch {
    return { getItem: () => null, setItem: () => {} };
  }
}

/**
 * Where the Stream keeps this tab's conversation scope: sessionStorage, so two tabs are two
 * conversations and a reload resumes its own. Null when storage is disabled (nothing is kept).
 */
export function streamScopeStorage(win: Window): ScopeStorage | null {
  try {
    return win.sessionStorage;
  } catch {
    return null;
  }
}

/** IPC inside the desktop shell, a token-authenticated WebSocket in a browser. */
export function chooseTransport(win: Window): Transport {
  if (win.silas) return new IpcTransport(win.silas);
  const token = takeToken({ location: win.location, history: win.history, storage: sessionStorageOf(win) });
  if (!token) return createDisconnectedTransport('no-token', NO_TOKEN_REASON);
  return new CockpitSocketClient({ url: webSocketUrl(win.location), token });
}
