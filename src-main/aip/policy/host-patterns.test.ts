import { describe, expect, it } from 'vitest';
import { findPattern, normaliseHost, parseConnectTarget, parseHostPattern, parseHostPatterns } from './host-patterns.js';

function allows(patterns: string[], target: string): boolean {
  const parsed = parseConnectTarget(target);
  if (parsed === null) throw new Error(`malformed target ${target}`);
  return findPattern(parseHostPatterns(patterns), parsed.host, parsed.port) !== null;
}

describe('host normalisation', () => {
  it('lowercases, drops one trailing dot and turns IDN into punycode', () => {
    expect(normaliseHost('API.Example.Test.')).toEqual({ name: 'api.example.test', ip: false });
    expect(normaliseHost('münchen.example')).toEqual({ name: 'xn--mnchen-3ya.example', ip: false });
    expect(normaliseHost('\u0430pi.example.test')?.name).toMatch(/^xn--/);
    expect(normaliseHost('[0:0:0:0:0:ffff:127.0.0.1]')).toEqual({ name: '[::ffff:7f00:1]', ip: true });
    expect(normaliseHost('10.0.0.1')).toEqual({ name: '10.0.0.1', ip: true });
  });

  it.each([
    [''], ['.'], ['a..b'], ['a.b..'], ['user@host'], ['a b.test'], ['a\tb.test'], ['a\u0000b.test'], ['ex\u00adample.test'],
    ['a%41.test'], ['a/b.test'], ['a\\b.test'], ['a?b'], ['a#b'], ['0x7f.1'], ['2130706433'], ['127.1'], ['x.123'],
    ['[fe80::1%eth0]'], ['[not-v6]'], ['*.example.test'], ['a:b'],
  ])('refuses %j', (raw) => {
    expect(normaliseHost(raw)).toBeNull();
  });
});

describe('host patterns', () => {
  it('matches names exactly, wildcards on subdomains only', () => {
    expect(allows(['api.example.test'], 'api.example.test:443')).toBe(true);
    expect(allows(['api.example.test'], 'x.api.example.test:443')).toBe(false);
    expect(allows(['*.example.test'], 'a.example.test:443')).toBe(true);
    expect(allows(['*.example.test'], 'a.b.example.test:80')).toBe(true);
    expect(allows(['*.example.test'], 'example.test:443')).toBe(false);
    expect(allows(['*.example.test'], 'evilexample.test:443')).toBe(false);
    expect(allows(['*.example.test'], 'example.test.evil:443')).toBe(false);
  });

  it('allows 443 and 80 by default and exactly the listed port otherwise', () => {
    expect(allows(['api.example.test'], 'api.example.test:80')).toBe(true);
    expect(allows(['api.example.test'], 'api.example.test:8080')).toBe(false);
    expect(allows(['api.example.test:8080'], 'api.example.test:8080')).toBe(true);
    expect(allows(['api.example.test:8080'], 'api.example.test:443')).toBe(false);
    expect(allows(['*.example.test:22'], 'git.example.test:22')).toBe(true);
  });

  it('treats IP literals as themselves only', () => {
    expect(allows(['93.184.216.34'], '93.184.216.34:443')).toBe(true);
    expect(allows(['api.example.test'], '93.184.216.34:443')).toBe(false);
    expect(allows(['[2001:db8::1]:8443'], '[2001:DB8:0::1]:8443')).toBe(true);
    expect(allows(['127.0.0.1'], '[::ffff:127.0.0.1]:443')).toBe(false);
  });

  it('normalises the policy side the same way', () => {
    expect(parseHostPattern(' *.EXAMPLE.test. ')).toMatchObject({ wildcard: true, host: { name: 'example.test' }, port: null });
    expect(allows(['München.example'], 'xn--mnchen-3ya.example:443')).toBe(true);
  });

  it('lets "*" allow any name on the web ports (or its port), never an IP literal', () => {
    expect(allows(['*'], 'anything.example:443')).toBe(true);
    expect(allows(['*'], 'anything.example:22')).toBe(false);
    expect(allows(['*:8443'], 'anything.example:8443')).toBe(true);
    expect(allows(['*'], '93.184.216.34:443')).toBe(false);
    expect(allows(['*'], '[::1]:443')).toBe(false);
  });

  it.each([['*:0'], ['*:70000'], ['**'], ['*.'], ['a.*.test'], ['*a.test'], ['*.10.0.0.1'], ['host:'], ['host:65536'], ['::1'], ['http://host'], ['user@host']])('refuses the pattern %j', (pattern) => {
    expect(() => parseHostPattern(pattern)).toThrow(/network host pattern/);
  });
});
