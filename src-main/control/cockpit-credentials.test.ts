import { describe, expect, it } from 'vitest';
import { WS_CLOSE_UNAUTHORIZED } from '../../src-shared/contract/wire.js';
import { CockpitCredentials, MAX_COCKPIT_CREDENTIALS, REVOKED_CLOSE_REASON, credentialsFrom } from './cockpit-credentials.js';

/** A bound session that records how it was closed. */
function session(id: string) {
  const closes: Array<[number, string]> = [];
  return { id, closes, close: (code: number, reason: string) => void closes.push([code, reason]) };
}

describe('CockpitCredentials', () => {
  it('keeps at most MAX_COCKPIT_CREDENTIALS: the oldest (here the start credential) is revoked first and its sessions signed out', () => {
    const credentials = new CockpitCredentials();
    const start = credentials.issue('start');
    const startTab = session('s-start');
    credentials.bind(credentials.match(start)!, startTab);
    const links = Array.from({ length: MAX_COCKPIT_CREDENTIALS - 1 }, () => credentials.issue('link'));
    expect(credentials.size).toBe(MAX_COCKPIT_CREDENTIALS);
    expect(credentials.match(start)).not.toBeNull();
    expect(startTab.closes).toEqual([]);

    const newest = credentials.issue('link');
    expect(credentials.size).toBe(MAX_COCKPIT_CREDENTIALS);
    expect(credentials.match(start)).toBeNull();
    expect(startTab.closes).toEqual([[WS_CLOSE_UNAUTHORIZED, REVOKED_CLOSE_REASON]]);
    for (const link of [...links, newest]) expect(credentials.match(link)).not.toBeNull();
  });

  it('matches only the exact credential, and holds no token in memory', () => {
    const credentials = new CockpitCredentials();
    const token = credentials.issue('link');
    expect(credentials.match(token.slice(0, -1))).toBeNull();
    expect(credentials.match(`${token}x`)).toBeNull();
    expect(credentials.match('')).toBeNull();
    expect(JSON.stringify(credentials)).not.toContain(token);
  });

  it('from a session without a credential (the desktop window), revoking revokes every credential', () => {
    const credentials = new CockpitCredentials();
    const a = credentials.issue('start');
    const b = credentials.issue('link');
    const tab = session('s-b');
    credentials.bind(credentials.match(b)!, tab);
    expect(credentials.revokeAllBut('ipc-session')).toEqual({ credentials: 2, sessions: 1 });
    expect(credentials.match(a)).toBeNull();
    expect(credentials.match(b)).toBeNull();
    expect(tab.closes).toHaveLength(1);
  });

  it('a surface given neither credentials nor a token refuses to be built', () => {
    expect(() => credentialsFrom({})).toThrow(/needs its credentials/);
    expect(credentialsFrom({ token: 'fixed' }).match('fixed')).not.toBeNull();
  });
});
