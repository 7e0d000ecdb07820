/**
 * The browser cockpit's access token. `silas start` prints a URL with `#token=…`: a fragment
 * never reaches a server or a Referer, and we take it out of the address bar at once so it
 * does not linger in history, screenshots or bookmarks. sessionStorage keeps it for reloads
 * of this tab only.
 */
export const TOKEN_STORAGE_KEY = 'silas.cockpit.token';

/** Reads `token` from a fragment such as `#token=abc` or `#token=abc&x=1`; null when absent. */
export function tokenFromHash(hash: string): string | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  if (body.startsWith('/')) return null;
  const token = new URLSearchParams(body).get('token');
  return token && token.length > 0 ? token : null;
}

export interface TokenEnvironment {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'replaceState'>;
  storage: Pick<Storage, 'getItem' | 'setItem'>;
}

/**
 * Takes the token from the address bar if present (replacing it with the default route),
 * otherwise falls back to the one kept for this tab. Returns null when there is none.
 */
export function takeToken(env: TokenEnvironment, landingHash = '#/stream'): string | null {
  const fromHash = tokenFromHash(env.location.hash);
  if (fromHash) {
    try {
      env.storage.setItem(TOKEN_STORAGE_KEY, fromHash);
    } catch {
      // Storage can be disabled; the token still works for this page load.
    }
    env.history.replaceState(null, '', `${env.location.pathname}${env.location.search}${landingHash}`);
    return fromHash;
  }
  try {
    return env.storage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null;
  }
}
