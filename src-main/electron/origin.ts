/**
 * The cockpit's own origin. The renderer is only ever served from here, so IPC, navigation
 * and event delivery can all be gated on this one check.
 */
export const APP_SCHEME = 'app';
const COCKPIT_HOST = 'cockpit';
export const COCKPIT_ORIGIN = `${APP_SCHEME}://${COCKPIT_HOST}`;
export const COCKPIT_INDEX_URL = `${COCKPIT_ORIGIN}/index.html`;

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * True for `app://cockpit/…` exactly. `app:` is not a WHATWG special scheme, so Node reports
 * its origin as "null": compare scheme and host instead. A port or userinfo makes it foreign.
 */
export function isCockpitUrl(url: string): boolean {
  if (typeof url !== 'string' || url.length === 0) return false;
  const parsed = parseUrl(url);
  return (
    parsed !== null &&
    parsed.protocol === `${APP_SCHEME}:` &&
    parsed.host === COCKPIT_HOST &&
    parsed.username === '' &&
    parsed.password === ''
  );
}

/** Links the cockpit may hand to the OS browser: https only, so no file:, smb:, or custom handlers. */
export function isHttpsUrl(url: string): boolean {
  const parsed = parseUrl(url);
  return parsed !== null && parsed.protocol === 'https:' && parsed.hostname !== '';
}
