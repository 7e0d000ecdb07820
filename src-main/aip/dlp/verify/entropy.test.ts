import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { entropyThreshold, passesEntropy, secretValue, shannonEntropy } from './entropy.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A fixed pseudo-random string (tests must not flake on the rare low-entropy draw). */
function random(length: number, alphabet = `${ALNUM}/+`): string {
  let state = 0x2545f491;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out += alphabet[(state >>> 16) % alphabet.length];
  }
  return out;
}

describe('entropy', () => {
  it('measures bits per character', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abab')).toBe(1);
    expect(shannonEntropy('0123456789abcdef')).toBe(4);
  });

  it('takes the value of an assignment or the password of a URL, else the whole match', () => {
    expect(secretValue('API_TOKEN=abc123xyz')).toBe('abc123xyz');
    expect(secretValue('"client_secret": "s3cr3t-v4lue"')).toBe('s3cr3t-v4lue');
    expect(secretValue("password: 'p4ss'")).toBe('p4ss');
    expect(secretValue('postgres://app:Zq8vN2kLp0@db.internal')).toBe('Zq8vN2kLp0');
    expect(secretValue('base64==')).toBe('base64==');
    expect(secretValue('ghp_abc')).toBe('ghp_abc');
  });

  it('has a lower threshold for hex and digits, and for short values', () => {
    expect(entropyThreshold(random(30))).toBe(3.5);
    expect(entropyThreshold(random(50))).toBe(4.0);
    expect(entropyThreshold(random(30, '0123456789abcdef'))).toBe(3.0);
    expect(entropyThreshold(random(30, '0123456789'))).toBe(2.5);
    expect(entropyThreshold(random(8))).toBeCloseTo(2.4);
  });

  it('accepts random secrets as bare tokens, assignments and URL passwords', () => {
    expect(passesEntropy(`AWS_SECRET_ACCESS_KEY=${random(40)}`)).toBe(true);
    expect(passesEntropy(`ghp_${random(36, ALNUM)}`)).toBe(true);
    expect(passesEntropy(`"db_password": "${random(16, ALNUM)}"`)).toBe(true);
    expect(passesEntropy(`API_KEY=${randomBytes(32).toString('hex')}`)).toBe(true);
    expect(passesEntropy(`mysql://root:${random(12, ALNUM)}@localhost`)).toBe(true);
    expect(passesEntropy(`SESSION_SECRET=${randomBytes(48).toString('base64')}`)).toBe(true);
  });

  it('refuses repeated characters, repetitions, low entropy and placeholders', () => {
    for (const text of [
      'x'.repeat(40),
      'abcdefghij'.repeat(4),
      `ghp_${'x'.repeat(36)}`,
      'TOKEN=1234512345123451',
      'SECRET=aaaabbbbccccdddd',
      'SECRET=Ab3xAb3xAb3xAb3xAb3x',
      'API_KEY=your_api_key_here',
      'API_KEY=<your-api-key>',
      'PASSWORD=${DB_PASSWORD}',
      'PASSWORD={{ vault_password }}',
      'PASSWORD=%DB_PASSWORD%',
      'PASSWORD=changeme',
      'password: "********"',
      'API_KEY=os.environ',
      'TOKEN=process.env.GITHUB_TOKEN',
      'postgres://user:password@localhost',
      'postgres://u:p@localhost',
      'TOKEN=short',
      'password: incorrect',
      '"token": "invalid_signature"',
      'SECRET_STATE=REFRESH_TOKEN_EXPIRED',
      'PASSWORD=correct-horse-battery-staple',
    ]) {
      expect(passesEntropy(text), text).toBe(false);
    }
  });

  it('stays bounded on huge input', () => {
    expect(passesEntropy(`K=${'ab'.repeat(5_000_000)}`)).toBe(false);
    expect(typeof passesEntropy(random(10_000_000 / 100).repeat(100))).toBe('boolean');
  });
});
