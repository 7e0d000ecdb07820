import { beforeEach, describe, expect, it } from 'vitest';
import { takeToken, TOKEN_STORAGE_KEY, tokenFromHash } from './token.js';

function browserEnv() {
  return { location: window.location, history: window.history, storage: window.sessionStorage };
}

describe('tokenFromHash', () => {
  it('reads the token parameter of the fragment', () => {
    expect(tokenFromHash('#token=abc123')).toBe('abc123');
    expect(tokenFromHash('#token=a%2Bb&other=1')).toBe('a+b');
  });

  it('returns null for routes, empty tokens and missing fragments', () => {
    expect(tokenFromHash('#/activity')).toBeNull();
    expect(tokenFromHash('#token=')).toBeNull();
    expect(tokenFromHash('')).toBeNull();
  });
});

describe('takeToken', () => {
  beforeEach(() => {
    window.sessionStorage.clear();
    window.history.replaceState(null, '', '/');
  });

  it('takes the token from the fragment, keeps it for the tab and removes it from the address bar', () => {
    window.history.replaceState(null, '', '/cockpit/?x=1#token=s3cret-token');
    expect(takeToken(browserEnv())).toBe('s3cret-token');
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('s3cret-token');
    expect(window.location.href).not.toContain('s3cret-token');
    expect(window.location.pathname).toBe('/cockpit/');
    expect(window.location.search).toBe('?x=1');
    expect(window.location.hash).toBe('#/stream');
  });

  it('uses the stored token after a reload without a fragment', () => {
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, 'kept');
    window.history.replaceState(null, '', '/#/activity');
    expect(takeToken(browserEnv())).toBe('kept');
    expect(window.location.hash).toBe('#/activity');
  });

  it('prefers a fresh token in the fragment over a stored one', () => {
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, 'old');
    window.history.replaceState(null, '', '/#token=new');
    expect(takeToken(browserEnv())).toBe('new');
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('new');
  });

  it('returns null when there is no token anywhere', () => {
    expect(takeToken(browserEnv())).toBeNull();
  });
});
