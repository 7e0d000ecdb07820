import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { standingAccountForHome } from '../approval/standing/grants.js';
import { ScratchKeyring } from './testing/keyring.js';
import { ledgerAccountsForHome } from './ledger-key.js';
import { MAX_SECRET_BYTES, NamedSecrets, SECRET_INDEX_ACCOUNT, SECRET_NAME_RULE, secretAccount } from './named-secrets.js';
import { OwnerKeyVault, ownerAccountForHome } from './owner-key.js';

// The real OS keyring (GNOME Keyring over D-Bus: scripts/with-keyring.sh), one scratch service per test.
const keyrings: ScratchKeyring[] = [];
function scratch(): { keyring: ScratchKeyring; secrets: NamedSecrets } {
  const keyring = new ScratchKeyring();
  keyrings.push(keyring);
  return { keyring, secrets: new NamedSecrets(keyring) };
}
afterEach(() => {
  for (const keyring of keyrings.splice(0)) keyring.cleanup();
});

const token = () => `ghp_${randomBytes(16).toString('hex')}`;

describe('named secrets in the OS keyring', () => {
  it('sets, gets, lists and deletes, keeping names in the index and values only under their own accounts', () => {
    const { keyring, secrets } = scratch();
    const github = token();
    const slack = token();
    expect(secrets.names()).toEqual([]);
    secrets.set('github-token', github);
    secrets.set('slack.bot_token', slack);
    expect(secrets.get('github-token')).toBe(github);
    expect(secrets.get('slack.bot_token')).toBe(slack);
    expect(secrets.names()).toEqual(['github-token', 'slack.bot_token']);

    const replaced = token();
    secrets.set('github-token', replaced);
    expect(secrets.get('github-token')).toBe(replaced);
    expect(secrets.names()).toEqual(['github-token', 'slack.bot_token']);

    // The index holds names only.
    const index = keyring.get(SECRET_INDEX_ACCOUNT)!;
    expect(JSON.parse(index)).toEqual({ v: 1, names: ['github-token', 'slack.bot_token'] });
    expect(index).not.toContain(slack);
    expect([...keyring.written].sort()).toEqual(['server-secret:github-token', 'server-secret:slack.bot_token', SECRET_INDEX_ACCOUNT]);

    expect(secrets.delete('github-token')).toBe(true);
    expect(secrets.get('github-token')).toBeNull();
    expect(keyring.get('server-secret:github-token')).toBeNull();
    expect(secrets.names()).toEqual(['slack.bot_token']);
    expect(secrets.delete('github-token')).toBe(false);
    expect(secrets.get('never-set')).toBeNull();
  });

  it.each([
    ['../x', '../x'],
    ['empty', ''],
    ['65 characters', 'a'.repeat(65)],
    ['a leading dot', '.hidden'],
    ['a leading dash', '-x'],
    ['a colon, which would leave the namespace', 'server-secret:x'],
    ['a slash', 'a/b'],
    ['a space', 'a b'],
    ['a NUL', 'a\0b'],
    ['non-ASCII', 'tökén'],
  ])('refuses a name with %s everywhere, naming the rule', (_label, name) => {
    const { keyring, secrets } = scratch();
    for (const attempt of [() => secrets.set(name, 'value'), () => secrets.get(name), () => secrets.delete(name), () => secrets.resolveEnvironment({ TOKEN: name }), () => secretAccount(name)]) {
      expect(attempt).toThrow(SECRET_NAME_RULE);
    }
    expect(keyring.written.size).toBe(0);
  });

  it('accepts names of 1 and 64 characters', () => {
    const { secrets } = scratch();
    secrets.set('a', 'one');
    secrets.set('A'.repeat(64), 'sixty-four');
    expect(secrets.get('a')).toBe('one');
    expect(secrets.get('A'.repeat(64))).toBe('sixty-four');
  });

  it('cannot reach any other account the app keeps in the keyring, whatever the name', () => {
    const { keyring, secrets } = scratch();
    const home = `/tmp/silas-home-${randomBytes(4).toString('hex')}`;
    const owner = new OwnerKeyVault(keyring, ownerAccountForHome(home)).ensure().signer;
    const ledger = ledgerAccountsForHome(home);
    const others = [ledger.key, ledger.anchor, standingAccountForHome(home), `doctor-probe-${process.pid}`];
    for (const account of others) keyring.set(account, `original ${account}`);
    const before = new Map([ownerAccountForHome(home), ...others].map((account) => [account, keyring.get(account)]));

    secrets.set('kept', 'kept value');
    for (const account of [...before.keys(), SECRET_INDEX_ACCOUNT]) secrets.set(account, 'attacker value');
    for (const [account, value] of before) expect(keyring.get(account)).toBe(value);
    expect(new OwnerKeyVault(keyring, ownerAccountForHome(home)).loadOrFail().fingerprint).toBe(owner.fingerprint);
    // A secret named like the index is just a secret: the index still parses and lists it.
    expect(secrets.names()).toEqual([...before.keys(), SECRET_INDEX_ACCOUNT, 'kept'].sort());
    expect(secrets.get(SECRET_INDEX_ACCOUNT)).toBe('attacker value');

    for (const account of [...before.keys(), SECRET_INDEX_ACCOUNT]) expect(secrets.delete(account)).toBe(true);
    for (const [account, value] of before) expect(keyring.get(account)).toBe(value);
    expect(secrets.names()).toEqual(['kept']);
    for (const account of keyring.written) expect(account === SECRET_INDEX_ACCOUNT || account.startsWith('server-secret:') || before.has(account)).toBe(true);
  });

  it('refuses empty, NUL-bearing and oversized values without repeating them', () => {
    const { keyring, secrets } = scratch();
    const secret = token();
    expect(() => secrets.set('x', '')).toThrow(/empty/);
    let error: unknown;
    try {
      secrets.set('x', `${secret}\0tail`);
    } catch (caught) {
      error = caught;
    }
    expect((error as Error).message).toMatch(/NUL/);
    expect((error as Error).message).not.toContain(secret);
    expect(() => secrets.set('x', 'a'.repeat(MAX_SECRET_BYTES + 1))).toThrow(/64 KiB/);
    // The limit is in UTF-8 bytes: 32 769 two-byte characters are 65 538 bytes.
    expect(() => secrets.set('x', 'é'.repeat(32_769))).toThrow(/64 KiB/);
    expect(keyring.written.size).toBe(0);

    const largest = 'b'.repeat(MAX_SECRET_BYTES);
    secrets.set('x', largest);
    expect(secrets.get('x')).toBe(largest);
  });

  it.each([
    ['not JSON', '{names: [oops'],
    ['JSON null', 'null'],
    ['another version', JSON.stringify({ v: 2, names: ['a'] })],
    ['names that are not a list', JSON.stringify({ v: 1, names: 'a' })],
    ['a name that breaks the rule', JSON.stringify({ v: 1, names: ['ok', '../evil'] })],
  ])('treats an index that is %s as empty, says so, and repairs it on the next change', (_label, corrupt) => {
    const { keyring, secrets } = scratch();
    secrets.set('before', 'value from before');
    keyring.set(SECRET_INDEX_ACCOUNT, corrupt);

    expect(secrets.listing()).toEqual({ names: [], indexCorrupt: true });
    expect(secrets.names()).toEqual([]);
    expect(secrets.get('before')).toBe('value from before');
    expect(secrets.resolveEnvironment({ BEFORE: 'before' }).env).toEqual({ BEFORE: 'value from before' });

    secrets.set('after', 'value');
    expect(secrets.listing()).toEqual({ names: ['after'], indexCorrupt: false });
    secrets.set('before', 'value from before');
    expect(secrets.names()).toEqual(['after', 'before']);
  });

  it('repairs a corrupt index on delete as well', () => {
    const { keyring, secrets } = scratch();
    secrets.set('gone', 'value');
    keyring.set(SECRET_INDEX_ACCOUNT, 'garbage');
    expect(secrets.delete('gone')).toBe(true);
    expect(secrets.listing()).toEqual({ names: [], indexCorrupt: false });
  });
});

describe('resolveEnvironment', () => {
  it('maps each variable to its secret value', () => {
    const { secrets } = scratch();
    const github = token();
    secrets.set('github-token', github);
    secrets.set('db.password', 'hunter2');
    expect(secrets.resolveEnvironment({ GITHUB_TOKEN: 'github-token', DB_PASSWORD: 'db.password', ALSO_GITHUB: 'github-token' })).toEqual({
      env: { GITHUB_TOKEN: github, DB_PASSWORD: 'hunter2', ALSO_GITHUB: github },
    });
    expect(secrets.resolveEnvironment({})).toEqual({ env: {} });
  });

  it('fails closed naming every missing variable, its secret and the command that fixes it', () => {
    const { secrets } = scratch();
    const present = token();
    secrets.set('present', present);
    let error: (Error & { code?: string }) | undefined;
    try {
      secrets.resolveEnvironment({ PRESENT: 'present', GITHUB_TOKEN: 'github-token', SLACK_TOKEN: 'slack' });
    } catch (caught) {
      error = caught as Error & { code?: string };
    }
    expect(error?.code).toBe('E_KEY_MISSING');
    expect(error?.message).toContain('GITHUB_TOKEN');
    expect(error?.message).toContain('"github-token"');
    expect(error?.message).toContain('`silas secrets set github-token`');
    expect(error?.message).toContain('SLACK_TOKEN');
    expect(error?.message).toContain('`silas secrets set slack`');
    expect(error?.message).not.toContain(present);
  });

  it('refuses a variable name a process environment cannot carry, and keeps __proto__ an ordinary key', () => {
    const { secrets } = scratch();
    secrets.set('s', 'value');
    for (const variable of ['', '1ABC', 'A=B', 'A B', 'A\0B']) expect(() => secrets.resolveEnvironment({ [variable]: 's' })).toThrow(/environment variable name/);
    const refs = JSON.parse('{"__proto__": "s"}') as Record<string, string>;
    const { env } = secrets.resolveEnvironment(refs);
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
    expect(Object.keys(env)).toEqual(['__proto__']);
  });
});
