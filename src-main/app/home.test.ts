import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { GENESIS_HASH, checkpointSigningBytes, entryHash } from '../audit/chain.js';
import { OwnerKeyVault, ownerAccountForHome } from '../keys/owner-key.js';
import { MemorySecretStore, type SecretStore } from '../keys/secret-store.js';
import { runSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';
import { openHome } from './home.js';
import { sqliteConnection } from '../store/transaction.js';

const tempDir = useTempDirs('silas-ledger-');

/** A keyring that is not reachable, as from a shell outside the desktop session. */
const unreachable: SecretStore = {
  description: 'Secret Service',
  get: () => {
    throw new SilasError(ErrorCode.Keyring, 'the OS keyring (Secret Service) is not reachable: no D-Bus session');
  },
  set: () => undefined,
  delete: () => false,
};

async function initialised(): Promise<{ home: string; keyring: MemorySecretStore }> {
  const home = join(tempDir(), 'home');
  const keyring = new MemorySecretStore();
  expect((await runSilas(['init', '--home', home], { secretStore: keyring })).code).toBe(0);
  return { home, keyring };
}

describe('trust comes only from the keyring', () => {
  it('without the keyring: no trusted keys, appending and verifying fail closed and say which keyring', async () => {
    const { home } = await initialised();
    const ledger = openHome(home, { create: false, keys: 'verify', secretStore: unreachable });
    try {
      expect(ledger.trustedKeys().size).toBe(0);
      expect(ledger.signer).toBeNull();
      expect(() => ledger.audit.append('operator.note', { text: 'x' })).toThrow(/cannot append to the audit ledger.*OS keyring.*not reachable.*unlock/);
      expect(() => ledger.audit.verifyChain()).toThrow(/cannot verify/);
    } finally {
      ledger.close();
    }
  });

  it('`silas audit verify` without the keyring exits 1 saying it cannot verify, also as JSON', async () => {
    const { home } = await initialised();
    const text = await runSilas(['audit', 'verify', '--home', home], { secretStore: unreachable });
    expect(text.code).toBe(1);
    expect(text.err).toMatch(/cannot verify/);
    expect(`${text.out}${text.err}`).not.toMatch(/intact/);
    const json = await runSilas(['audit', 'verify', '--home', home, '--json'], { secretStore: unreachable });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ valid: false, error: { code: ErrorCode.KeyMissing } });
  });

  it('`silas audit verify --json` on a missing home prints JSON', async () => {
    const home = join(tempDir(), 'nowhere');
    const result = await runSilas(['audit', 'verify', '--home', home, '--json'], { secretStore: new MemorySecretStore() });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ valid: false, error: { code: ErrorCode.Config, message: expect.stringContaining('silas init') } });
  });

  it('a key inserted into owner_keys is reported as tampering and refused, and the attempt is audited', async () => {
    const { home, keyring } = await initialised();
    const attacker = new OwnerKeyVault(new MemorySecretStore(), 'attacker').ensure().signer;
    const db = new Database(join(home, 'silas.db'));
    db.prepare("INSERT INTO owner_keys VALUES (?, ?, 'silas', 'x', ?)").run(attacker.fingerprint, attacker.publicKey.toString('hex'), new Date().toISOString());
    db.close();
    expect(() => openHome(home, { create: false, keys: 'signer', secretStore: keyring })).toThrow(expect.objectContaining({ code: ErrorCode.LedgerTampered }));
    // Even without the keyring, two keys for one home are never trusted.
    expect(() => openHome(home, { create: false, keys: 'verify', secretStore: unreachable })).toThrow(/owner_keys table lists 2 keys/);
    const check = new Database(join(home, 'silas.db'), { readonly: true });
    const recorded = check.prepare("SELECT data FROM audit_entries WHERE event = 'audit.tamper_detected'").all() as { data: string }[];
    check.close();
    expect(recorded.map((r) => JSON.parse(r.data) as { foreign_fingerprints: string[] })).toEqual([expect.objectContaining({ foreign_fingerprints: [attacker.fingerprint] })]);
  });

  it('never mints a second ledger key for a home whose chain is keyed', async () => {
    const { home, keyring } = await initialised();
    const owner = keyring.get(ownerAccountForHome(home))!;
    const fresh = new MemorySecretStore();
    fresh.set(ownerAccountForHome(home), owner);
    expect(() => openHome(home, { create: false, keys: 'signer', secretStore: fresh })).toThrow(/keyed .* by ledger key .* not in the OS keyring/);
  });
});

describe('upgrading a ledger written before the keyed chain (migration 007)', () => {
  /** A home as the previous version left it: plain sha256 links, one owner-signed checkpoint. */
  function legacyHome(count: number, keyring: MemorySecretStore): string {
    const home = join(tempDir(), 'home');
    const signer = new OwnerKeyVault(keyring, ownerAccountForHome(home)).ensure().signer;
    const ledger = openHome(home, { create: true, keys: 'verify', secretStore: new MemorySecretStore() });
    const raw = ledger.db;
    sqliteConnection(raw).prepare("INSERT INTO owner_keys VALUES (?, ?, 'silas', ?, ?)").run(signer.fingerprint, signer.publicKey.toString('hex'), ownerAccountForHome(home), new Date().toISOString());
    let prev = GENESIS_HASH;
    for (let i = 0; i < count; i += 1) {
      const body = { index: i, id: `legacy-${i}`, ts: new Date().toISOString(), event: 'aip.decision', dataJson: `{"decision":"${i === 1 ? 'BLOCK' : 'ALLOW'}"}` };
      const hash = entryHash(prev, body);
      sqliteConnection(raw).prepare('INSERT INTO audit_entries VALUES (?, ?, ?, ?, ?, ?, ?)').run(i, body.id, body.ts, body.event, body.dataJson, prev, hash);
      prev = hash;
    }
    const cp = { id: 'legacy-cp', index: count - 1, hash: prev, createdAt: new Date().toISOString(), keyFingerprint: signer.fingerprint };
    sqliteConnection(raw).prepare('INSERT INTO audit_checkpoints VALUES (?, ?, ?, ?, ?, ?)').run(cp.id, cp.index, cp.hash, cp.createdAt, cp.keyFingerprint, signer.sign(checkpointSigningBytes(cp)).toString('base64'));
    sqliteConnection(raw).close();
    return home;
  }

  it('seals the legacy entries on first open with the keyring; rewriting them afterwards is detected', async () => {
    const keyring = new MemorySecretStore();
    const home = legacyHome(5, keyring);
    expect((await runSilas(['audit', 'verify', '--home', home, '--json'], { secretStore: keyring })).code).toBe(0);
    const db = new Database(join(home, 'silas.db'));
    expect(db.prepare("SELECT idx FROM audit_entries WHERE event = 'audit.chain_keyed'").all()).toEqual([{ idx: 5 }]);
    // Rewrite legacy entry 1 with plain sha256, relinking every legacy entry after it.
    const rows = db.prepare('SELECT * FROM audit_entries WHERE idx < 5 ORDER BY idx').all() as { idx: number; id: string; ts: string; event: string; data: string }[];
    let prev = GENESIS_HASH;
    for (const row of rows) {
      const data = row.idx === 1 ? '{"decision":"ALLOW"}' : row.data;
      const hash = entryHash(prev, { index: row.idx, id: row.id, ts: row.ts, event: row.event, dataJson: data });
      db.prepare('UPDATE audit_entries SET data = ?, prev_hash = ?, hash = ? WHERE idx = ?').run(data, prev, hash, row.idx);
      prev = hash;
    }
    db.prepare('DELETE FROM audit_checkpoints WHERE idx < 5').run();
    db.close();
    const verdict = await runSilas(['audit', 'verify', '--home', home, '--json'], { secretStore: keyring });
    expect(verdict.code).toBe(1);
    expect(JSON.parse(verdict.out)).toMatchObject({ valid: false, firstInvalid: { index: 5 } });
  });

  it('refuses to seal a legacy chain that is already broken', () => {
    const keyring = new MemorySecretStore();
    const home = legacyHome(4, keyring);
    const db = new Database(join(home, 'silas.db'));
    db.prepare('UPDATE audit_entries SET data = \'{"decision":"forged"}\' WHERE idx = 2').run();
    db.close();
    expect(() => openHome(home, { create: false, keys: 'signer', secretStore: keyring })).toThrow(/cannot be sealed.*entry 2 was modified/);
  });
});
