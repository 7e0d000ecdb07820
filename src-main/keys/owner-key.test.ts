import { randomBytes } from 'node:crypto';
import { Entry } from '@napi-rs/keyring';
import nacl from 'tweetnacl';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFingerprint, verifyEd25519 } from './ed25519.js';
import { OwnerKeyVault, ownerAccountForHome, trustedKeys } from './owner-key.js';
import { KEYRING_SERVICE, MemorySecretStore, OsKeyring } from './secret-store.js';

// These tests use the real OS keyring (GNOME Keyring over D-Bus in CI: scripts/with-keyring.sh).
const accounts: string[] = [];
function testAccount(): string {
  const account = `test-${randomBytes(6).toString('hex')}`;
  accounts.push(account);
  return account;
}
afterEach(() => {
  const keyring = new OsKeyring();
  for (const account of accounts.splice(0)) keyring.delete(account);
});

/** Reads the raw keyring record the way an attacker with keyring access could. */
function seedFromKeyring(account: string): Buffer {
  const record = JSON.parse(new Entry(KEYRING_SERVICE, account, { linux: { store: 'secret-service' } }).getPassword()!) as { pkcs8: string };
  return Buffer.from(record.pkcs8, 'base64').subarray(-32);
}

describe('owner key in the OS keyring', () => {
  it('creates the key once, then loads the same key', () => {
    const account = testAccount();
    const vault = new OwnerKeyVault(new OsKeyring(), account);
    const first = vault.ensure();
    const second = vault.ensure();
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(second.signer.fingerprint).toBe(first.signer.fingerprint);
    expect(first.signer.fingerprint).toBe(keyFingerprint(first.signer.publicKey));
  });

  it('signs Ed25519 exactly as tweetnacl does (deterministic signatures cross-checked both ways)', () => {
    const account = testAccount();
    const signer = new OwnerKeyVault(new OsKeyring(), account).ensure().signer;
    const pair = nacl.sign.keyPair.fromSeed(seedFromKeyring(account));
    expect(Buffer.from(pair.publicKey).equals(signer.publicKey)).toBe(true);
    for (const message of [Buffer.alloc(0), Buffer.from('approve plan 42'), randomBytes(4096)]) {
      const ours = signer.sign(message);
      const theirs = nacl.sign.detached(message, pair.secretKey);
      expect(Buffer.from(theirs).equals(ours)).toBe(true);
      expect(nacl.sign.detached.verify(message, ours, pair.publicKey)).toBe(true);
      expect(verifyEd25519(signer.publicKey, message, theirs)).toBe(true);
    }
  });

  it('rejects forged, truncated and bit-flipped signatures and a wrong key', () => {
    const signer = new OwnerKeyVault(new OsKeyring(), testAccount()).ensure().signer;
    const message = Buffer.from('checkpoint 7');
    const good = signer.sign(message);
    const flipped = Buffer.from(good);
    flipped[10]! ^= 1;
    expect(signer.verify(message, good)).toBe(true);
    expect(signer.verify(message, flipped)).toBe(false);
    expect(signer.verify(message, good.subarray(0, 63))).toBe(false);
    expect(signer.verify(Buffer.from('checkpoint 8'), good)).toBe(false);
    const other = nacl.sign.keyPair();
    expect(verifyEd25519(other.publicKey, message, good)).toBe(false);
    expect(verifyEd25519(Buffer.alloc(31), message, good)).toBe(false);
  });

  it('never exposes private key material when serialised or logged', () => {
    const account = testAccount();
    const signer = new OwnerKeyVault(new OsKeyring(), account).ensure().signer;
    const seed = seedFromKeyring(account);
    const shown = [JSON.stringify(signer), JSON.stringify({ signer }), String(Object.keys(signer))].join('\n');
    for (const form of [seed.toString('hex'), seed.toString('base64'), seed.toString('base64url')]) expect(shown).not.toContain(form);
    expect(Object.values(signer).some((v) => Buffer.isBuffer(v) && v.equals(seed))).toBe(false);
  });

  it('derives distinct accounts for distinct homes', () => {
    expect(ownerAccountForHome('/home/a/.local/share/silas')).not.toBe(ownerAccountForHome('/tmp/test-home'));
    expect(ownerAccountForHome('/x')).toMatch(/^owner-[0-9a-f]{24}$/);
  });

  it('refuses a keyring entry that is not a Silas key', () => {
    const store = new MemorySecretStore();
    store.set('acct', 'not json');
    expect(() => new OwnerKeyVault(store, 'acct').load()).toThrow(/does not hold a valid Silas owner key/);
  });

  it('says how to get a keyring when none is reachable', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = `import { OsKeyring } from './src-main/keys/secret-store.ts';
try { new OsKeyring().get('probe'); console.log('REACHED'); } catch (e) { console.log(e.code + ' ' + e.message); }`;
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, encoding: 'utf8' });
    expect(run.stdout).toMatch(/^E_KEYRING_UNAVAILABLE the OS keyring \(Secret Service\) is not reachable/);
    expect(run.stdout).toContain('gnome-keyring-daemon');
  });
});

describe('trustedKeys', () => {
  it('holds exactly the keyring owner key, so a signature verifies against it and nothing else', () => {
    const { signer } = new OwnerKeyVault(new MemorySecretStore(), 'trusted-keys').ensure();
    const keys = trustedKeys(signer);
    expect([...keys.keys()]).toEqual([signer.fingerprint]);
    const message = Buffer.from('approve');
    expect(verifyEd25519(keys.get(signer.fingerprint)!, message, signer.sign(message))).toBe(true);
  });

  it('is empty without a keyring key, so every signature check fails closed', () => {
    expect(trustedKeys(null).size).toBe(0);
    expect(trustedKeys(undefined).size).toBe(0);
  });
});
