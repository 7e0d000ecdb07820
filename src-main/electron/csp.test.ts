import { describe, expect, it } from 'vitest';
import { buildCockpitCsp, COCKPIT_CSP, cockpitSecurityHeaders } from './csp.js';

describe('cockpit CSP', () => {
  it('is exactly the strict same-origin policy', () => {
    expect(COCKPIT_CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
  });

  it('allows no inline or evaluated code and no remote host', () => {
    expect(COCKPIT_CSP).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|wasm-unsafe-eval|\*|https?:|ws:/);
  });

  it('builds from a directive list', () => {
    expect(buildCockpitCsp([['default-src', ["'none'"]], ['img-src', ["'self'", 'data:']]])).toBe("default-src 'none'; img-src 'self' data:");
  });

  it('sends the CSP with nosniff on every response', () => {
    const headers = cockpitSecurityHeaders();
    expect(headers['content-security-policy']).toBe(COCKPIT_CSP);
    expect(headers['x-content-type-options']).toBe('nosniff');
  });
});
