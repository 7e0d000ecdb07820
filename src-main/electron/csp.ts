/**
 * The cockpit's Content-Security-Policy. Everything is same-origin: the bundle has no inline
 * scripts or styles, talks to the runtime only through the preload bridge, and never needs
 * a third-party host, so anything looser would only widen what an injected string could do.
 */
const COCKPIT_CSP_DIRECTIVES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['default-src', ["'self'"]],
  ['script-src', ["'self'"]],
  ['style-src', ["'self'"]],
  ['img-src', ["'self'", 'data:']],
  ['connect-src', ["'self'"]],
  ['object-src', ["'none'"]],
  ['base-uri', ["'none'"]],
  ['frame-ancestors', ["'none'"]],
  ['form-action', ["'none'"]],
];

export function buildCockpitCsp(directives: ReadonlyArray<readonly [string, readonly string[]]> = COCKPIT_CSP_DIRECTIVES): string {
  return directives.map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ');
}

export const COCKPIT_CSP = buildCockpitCsp();

/** Headers sent with every app:// response, including errors, so no response is ever unprotected. */
export function cockpitSecurityHeaders(): Record<string, string> {
  return {
    'content-security-policy': COCKPIT_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  };
}
