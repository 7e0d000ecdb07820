import { describe, expect, it } from 'vitest';
import { OriginPolicy, isLoopbackHost } from './origin-policy.js';

const P = 47_123;

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])('treats %s as loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    '0.0.0.0',
    '::',
    '[::]',
    '10.0.0.1',
    '192.168.1.10',
    '128.0.0.1',
    'example.com',
    '127.0.0.1.evil.com',
    'localhost.evil.com',
    'evil-localhost',
    '::2',
    '',
  ])('treats %s as not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('OriginPolicy: Host header', () => {
  const policy = new OriginPolicy(P);

  it.each([`127.0.0.1:${P}`, `localhost:${P}`, `[::1]:${P}`, `LOCALHOST:${P}`])('allows %s', (host) => {
    expect(policy.hostAllowed(host)).toBe(true);
  });

  it.each([
    [`127.0.0.1:${P + 1}`],
    [`localhost:${P - 1}`],
    [`[::1]:80`],
    ['127.0.0.1'],
    ['localhost'],
    [`evil.com:${P}`],
    [`127.0.0.1.evil.com:${P}`],
    [`localhost.evil.com:${P}`],
    [`evil.com:${P}@127.0.0.1:${P}`],
    [`127.0.0.1:${P}.evil.com`],
    [`127.0.0.1:${P} `],
    [` 127.0.0.1:${P}`],
    [`0.0.0.0:${P}`],
    [`::1:${P}`],
    [`127.0.0.2:${P}`],
    [''],
  ])('refuses %j', (host) => {
    expect(policy.hostAllowed(host)).toBe(false);
  });

  it('refuses a missing Host header', () => {
    expect(policy.hostAllowed(undefined)).toBe(false);
  });

  it('accepts extra hosts only at the bound port', () => {
    const remote = new OriginPolicy(P, { extraHosts: ['silas.example.org'] });
    expect(remote.hostAllowed(`silas.example.org:${P}`)).toBe(true);
    expect(remote.hostAllowed(`silas.example.org:${P + 1}`)).toBe(false);
    expect(remote.hostAllowed(`other.example.org:${P}`)).toBe(false);
    expect(remote.originAllowed(`http://silas.example.org:${P}`)).toBe(true);
  });
});

describe('OriginPolicy: Origin header', () => {
  const policy = new OriginPolicy(P);

  it('refuses an absent Origin: only a browser (the cockpit) may use the WebSocket', () => {
    expect(policy.originAllowed(undefined)).toBe(false);
  });

  it.each([`http://127.0.0.1:${P}`, `http://localhost:${P}`, `http://[::1]:${P}`, `HTTP://LocalHost:${P}`])('allows its own origin %s', (origin) => {
    expect(policy.originAllowed(origin)).toBe(true);
  });

  it.each([
    ['http://evil.com'],
    [`http://evil.com:${P}`],
    [`http://127.0.0.1.evil.com:${P}`],
    ['null'],
    [''],
    [`http://localhost:${P + 1}`],
    [`http://127.0.0.1`],
    [`https://127.0.0.1:${P}`],
    [`ws://127.0.0.1:${P}`],
    [`http://127.0.0.1:${P}/`],
    [`http://127.0.0.1:${P}, http://evil.com`],
    [`file://`],
    [`chrome-extension://abcdefghijklmnop`],
  ])('refuses %j', (origin) => {
    expect(policy.originAllowed(origin)).toBe(false);
  });

  it('with TLS, wants https origins and refuses plain http ones', () => {
    const tls = new OriginPolicy(P, { tls: true });
    expect(tls.originAllowed(`https://127.0.0.1:${P}`)).toBe(true);
    expect(tls.originAllowed(`http://127.0.0.1:${P}`)).toBe(false);
    expect(tls.hostAllowed(`127.0.0.1:${P}`)).toBe(true);
  });
});
