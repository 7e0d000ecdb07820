import type { StandingApproval } from '../../store/standing-slice.js';

/* Pure text for the Policies page, kept apart from components so it is tested on its own. */

/** Hex characters shown of a key fingerprint; the full value is one hover (title) away. */
const SHORT_FINGERPRINT_LENGTH = 12;

/** `ed25519:9f2c1be07a51d4c3…` → `ed25519:9f2c1be07a51`; a missing fingerprint reads as an em dash. */
export function shortFingerprint(fingerprint: string): string {
  if (!fingerprint) return '—';
  const colon = fingerprint.indexOf(':');
  const prefix = colon >= 0 ? fingerprint.slice(0, colon + 1) : '';
  return prefix + fingerprint.slice(colon + 1, colon + 1 + SHORT_FINGERPRINT_LENGTH);
}

/** The arguments a standing approval covers, from the JSON text the runtime stored: pretty when it parses, verbatim when not. */
export function formatArgsDisplay(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2) ?? text;
  } catch {
    return text;
  }
}

/** One standing approval's accessible name, e.g. "delete_file on files". */
export function standingName(item: Pick<StandingApproval, 'tool' | 'server'>): string {
  return `${item.tool} on ${item.server}`;
}

/** The Revoke button's accessible name, e.g. "Revoke always-allow for delete_file on files". */
export function revokeName(item: Pick<StandingApproval, 'tool' | 'server'>): string {
  return `Revoke always-allow for ${item.tool} on ${item.server}`;
}

/** The Revoke button's consequence label (card contract §0.5.3). */
export const REVOKE_CONSEQUENCE = 'The next identical call asks you again';
