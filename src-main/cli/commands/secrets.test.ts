import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ScratchKeyring } from '../../keys/testing/keyring.js';
import { NamedSecrets, SECRET_INDEX_ACCOUNT } from '../../keys/named-secrets.js';
import { OsKeyring } from '../../keys/secret-store.js';
import { SILAS_BIN } from '../../testing/cli.js';
import { runCli } from '../main.js';

// The real OS keyring (scripts/with-keyring.sh), one scratch service per test.
const keyrings: ScratchKeyring[] = [];
afterEach(() => {
  for (const keyring of keyrings.splice(0)) keyring.cleanup();
});
function scratch(): ScratchKeyring {
  const keyring = new ScratchKeyring();
  keyrings.push(keyring);
  return keyring;
}

/** Everything any run printed, so a test can show a value never appeared in it. */
let printed: string[] = [];
afterEach(() => {
  printed = [];
});

async function silas(keyring: ScratchKeyring, argv: string[], stdin?: string | Buffer | NodeJS.ReadableStream) {
  const out: string[] = [];
  const err: string[] = [];
  const input = typeof stdin === 'string' || Buffer.isBuffer(stdin) ? Readable.from([Buffer.from(stdin)]) : stdin;
  const code = await runCli(['secrets', ...argv], { out: (t) => out.push(t), err: (t) => err.push(t), env: {}, secretStore: keyring, stdin: input });
  printed.push(...out, ...err);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const token = () => `ghp_${randomBytes(16).toString('hex')}`;

describe('silas secrets', () => {
  it('sets from standard input, lists names only, deletes, and never prints a value', async () => {
    const keyring = scratch();
    const secrets = new NamedSecrets(keyring);
    const github = token();
    const npm = token();

    expect(await silas(keyring, ['set', 'github-token'], `${github}\n`)).toMatchObject({ code: 0, out: expect.stringContaining('stored secret "github-token"') });
    expect(await silas(keyring, ['set', 'npm'], npm)).toMatchObject({ code: 0 });
    expect(secrets.get('github-token')).toBe(github);
    expect(secrets.get('npm')).toBe(npm);

    expect(await silas(keyring, ['list'])).toEqual({ code: 0, out: 'github-token\nnpm', err: '' });

    expect(await silas(keyring, ['delete', 'npm'])).toMatchObject({ code: 0, out: 'deleted secret "npm"' });
    expect(secrets.get('npm')).toBeNull();
    expect((await silas(keyring, ['list'])).out).toBe('github-token');
    const again = await silas(keyring, ['delete', 'npm']);
    expect(again.code).toBe(1);
    expect(again.err).toContain('no secret "npm"');

    expect(await silas(keyring, ['delete', 'github-token'])).toMatchObject({ code: 0 });
    expect(await silas(keyring, ['list'])).toMatchObject({ code: 0, out: '', err: expect.stringContaining('no secrets stored') });

    for (const text of printed) {
      expect(text).not.toContain(github);
      expect(text).not.toContain(npm);
    }
  });

  it('--origin binds a model provider key to origins (scheme://host:port); without it the binding is kept; delete removes it', async () => {
    const keyring = scratch();
    const secrets = new NamedSecrets(keyring);
    const key = token();
    const set = await silas(keyring, ['set', 'openai-key', '--origin', 'https://api.openai.com/v1', '--origin', 'http://127.0.0.1:8080/v1'], `${key}\n`);
    expect(set).toMatchObject({ code: 0, out: expect.stringContaining('to http://127.0.0.1:8080, https://api.openai.com:443 and nowhere else') });
    expect(secrets.boundOrigins('openai-key')).toEqual(['http://127.0.0.1:8080', 'https://api.openai.com:443']);
    expect(await silas(keyring, ['set', 'openai-key'], token())).toMatchObject({ code: 0 });
    expect(secrets.boundOrigins('openai-key')).toEqual(['http://127.0.0.1:8080', 'https://api.openai.com:443']);
    expect(await silas(keyring, ['set', 'github-token'], token())).toMatchObject({ code: 0 });
    expect((await silas(keyring, ['list'])).out.split('\n')).toEqual(['github-token', 'openai-key  (model provider key for http://127.0.0.1:8080, https://api.openai.com:443)']);
    // A URL that is not one is refused before the value is read.
    expect(await silas(keyring, ['set', 'openai-key', '--origin', 'api.openai.com'], token())).toMatchObject({ code: 2, err: expect.stringContaining('is not an http:// or https:// URL') });
    expect(await silas(keyring, ['delete', 'openai-key'])).toMatchObject({ code: 0 });
    expect(secrets.boundOrigins('openai-key')).toEqual([]);
    for (const text of printed) expect(text).not.toContain(key);
  });

  it('drops exactly one trailing newline (LF or CRLF), keeping the rest of the value', async () => {
    const keyring = scratch();
    const secrets = new NamedSecrets(keyring);
    for (const [input, stored] of [
      ['abc\n', 'abc'],
      ['abc\r\n', 'abc'],
      ['abc\n\n', 'abc\n'],
      ['line one\nline two', 'line one\nline two'],
      ['  spaced  ', '  spaced  '],
    ] as const) {
      expect((await silas(keyring, ['set', 'v'], input)).code).toBe(0);
      expect(secrets.get('v')).toBe(stored);
    }
  });

  it.each([
    ['nothing', ''],
    ['only a newline', '\n'],
    ['only a CRLF', '\r\n'],
  ])('refuses an empty value (%s) and stores nothing', async (_label, input) => {
    const keyring = scratch();
    const result = await silas(keyring, ['set', 'empty'], input);
    expect(result.code).toBe(1);
    expect(result.err).toContain('is empty; nothing was stored');
    expect(keyring.written.size).toBe(0);
  });

  it('refuses oversized, NUL-bearing and non-UTF-8 input without echoing it', async () => {
    const keyring = scratch();
    const secret = token();
    const oversized = await silas(keyring, ['set', 'big'], Readable.from(Array.from({ length: 20 }, () => Buffer.alloc(4096, 'x'))));
    expect(oversized).toMatchObject({ code: 1, err: expect.stringContaining('64 KiB') });
    const nul = await silas(keyring, ['set', 'nul'], `${secret}\0`);
    expect(nul).toMatchObject({ code: 1, err: expect.stringContaining('NUL') });
    const latin1 = await silas(keyring, ['set', 'latin1'], Buffer.concat([Buffer.from(secret), Buffer.from([0xe9])]));
    expect(latin1).toMatchObject({ code: 1, err: expect.stringContaining('not valid UTF-8') });
    expect(keyring.written.size).toBe(0);
    for (const text of printed) expect(text).not.toContain(secret);
  });

  it('refuses a value given as an argument, without printing it', async () => {
    const keyring = scratch();
    const secret = token();
    const result = await silas(keyring, ['set', 'github-token', secret], '');
    expect(result.code).toBe(2);
    expect(result.err).toContain('read from standard input, never from arguments');
    expect(result.err).not.toContain(secret);
    const flag = await silas(keyring, ['set', 'github-token', `--value=${secret}`], '');
    expect(flag.code).toBe(2);
    expect(flag.err).not.toContain(secret);
    // A value that starts with dashes reads as an unknown option, which usage errors quote.
    const dashed = `--${secret}`;
    for (const argv of [['set', 'github-token', dashed], ['set', dashed]]) {
      const result = await silas(keyring, argv, '');
      expect(result.code).toBe(2);
      expect(result.err).not.toContain(secret);
      expect(result.out).not.toContain(secret);
    }
    expect(keyring.written.size).toBe(0);
  });

  it.each([
    ['../x', '../x'],
    ['empty', ''],
    ['65 characters', 'n'.repeat(65)],
    ['a colon', 'server-secret:x'],
  ])('refuses the name %s with the rule, as bad usage', async (_label, name) => {
    const keyring = scratch();
    for (const argv of [['set', name], ['delete', name]]) {
      const result = await silas(keyring, argv, 'value');
      expect(result.code).toBe(2);
      expect(result.err).toContain('letters, digits, "_", "." and "-"');
    }
    expect(keyring.written.size).toBe(0);
  });

  it('a secret named like an app account leaves that account alone', async () => {
    const keyring = scratch();
    keyring.set('owner-0123456789abcdef01234567', 'the owner key record');
    expect(await silas(keyring, ['set', 'owner-0123456789abcdef01234567'], 'attacker')).toMatchObject({ code: 0 });
    expect(await silas(keyring, ['delete', 'owner-0123456789abcdef01234567'])).toMatchObject({ code: 0 });
    expect(keyring.get('owner-0123456789abcdef01234567')).toBe('the owner key record');
  });

  it('asks a terminal to type the value, or pipe it', async () => {
    const keyring = scratch();
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const run = silas(keyring, ['set', 'typed'], stdin);
    stdin.end('typed value\n');
    const result = await run;
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/Type the value of secret "typed".*pipe it/);
    expect(new NamedSecrets(keyring).get('typed')).toBe('typed value');
  });

  it('lists what it can when the index is corrupt, and says so', async () => {
    const keyring = scratch();
    expect((await silas(keyring, ['set', 'kept'], 'value')).code).toBe(0);
    keyring.set(SECRET_INDEX_ACCOUNT, '{"v":1,"names":');
    const result = await silas(keyring, ['list']);
    expect(result).toMatchObject({ code: 0, out: '' });
    expect(result.err).toContain('unreadable, so it counts as empty');
    expect(new NamedSecrets(keyring).get('kept')).toBe('value');
  });

  it('needs standard input and a subcommand; prints usage on --help', async () => {
    const keyring = scratch();
    expect((await silas(keyring, ['set', 'x'])).code).toBe(2);
    expect((await silas(keyring, [])).code).toBe(2);
    expect(await silas(keyring, ['list', '--help'])).toMatchObject({ code: 0, out: expect.stringContaining('Usage: silas secrets') });
  });

  // The binary uses the real `silas` service; the index it rewrites is put back byte for byte.
  it('reads the value from a real pipe into the real binary', () => {
    const name = `test-${randomBytes(6).toString('hex')}`;
    const secret = token();
    const keyring = new OsKeyring();
    const secrets = new NamedSecrets(keyring);
    const index = keyring.get(SECRET_INDEX_ACCOUNT);
    try {
      const run = spawnSync(process.execPath, [SILAS_BIN, 'secrets', 'set', name], { input: `${secret}\n`, encoding: 'utf8', timeout: 60_000 });
      expect(run.status, run.stderr).toBe(0);
      expect(`${run.stdout}${run.stderr}`).not.toContain(secret);
      expect(secrets.get(name)).toBe(secret);
    } finally {
      secrets.delete(name);
      if (index === null) keyring.delete(SECRET_INDEX_ACCOUNT);
      else keyring.set(SECRET_INDEX_ACCOUNT, index);
    }
  });
});
