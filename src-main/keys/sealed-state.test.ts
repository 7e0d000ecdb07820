import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ScratchKeyring } from './testing/keyring.js';
import { parseLedgerKeyRecord } from './ledger-key.js';
import { OwnerKeyVault } from './owner-key.js';
import { anchorAccount, StateSeals, type SealRefusal } from './sealed-state.js';
import { MemorySecretStore } from './secret-store.js';

// The sealed-state module from the side of a process that can write the home's files and the
// database but cannot reach the keyring: it can edit, delete, move and put back values, and make
// up seals, but it holds no key. Anchors live in the real OS keyring (scripts/with-keyring.sh).

const keyrings: ScratchKeyring[] = [];
afterEach(() => {
  for (const keyring of keyrings.splice(0)) keyring.cleanup();
});

function fixture(options: { ownerKey?: boolean; ledgerKey?: boolean } = {}) {
  const secrets = new MemorySecretStore();
  const owner = new OwnerKeyVault(secrets, 'owner-test').ensure().signer;
  const ledger = parseLedgerKeyRecord(JSON.stringify({ v: 1, alg: 'hmac-sha256', key: randomBytes(32).toString('base64'), keyed_from: 0 }), 'ledger-test').chain;
  const keyring = new ScratchKeyring();
  keyrings.push(keyring);
  const refusals: SealRefusal[] = [];
  const seals = new StateSeals({
    keys: { owner: () => (options.ownerKey === false ? null : owner), ledger: () => (options.ledgerKey === false ? null : ledger) },
    anchors: { store: keyring, absoluteHome: `/tmp/sealed-${randomBytes(4).toString('hex')}` },
    reporter: { refused: (refusal) => refusals.push(refusal) },
  });
  return { seals, refusals, keyring };
}

const models = { planner: { provider: 'openai-compatible', model: 'llama', baseUrl: 'http://127.0.0.1:11434/v1' } };

describe.each(['owner', 'ledger'] as const)('%s seals', (authority) => {
  it('a sealed value checks, and its seal does not depend on key order', () => {
    const { seals, refusals } = fixture();
    const seal = seals.seal(authority, 'models', 'models.json', models);
    expect(seal.startsWith(authority === 'owner' ? 'ed25519:' : 'hmac:')).toBe(true);
    const reordered = { planner: { baseUrl: models.planner.baseUrl, model: 'llama', provider: 'openai-compatible' } };
    expect(seals.check(authority, 'models', 'models.json', reordered, seal)).toEqual({ ok: true });
    expect(refusals).toEqual([]);
  });

  it('an edited value is refused and reported once, however often it is read', () => {
    const { seals, refusals } = fixture();
    const seal = seals.seal(authority, 'models', 'models.json', models);
    const edited = { planner: { ...models.planner, baseUrl: 'http://attacker.example/v1' } };
    for (let i = 0; i < 5; i += 1) {
      const result = seals.check(authority, 'models', 'models.json', edited, seal);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.refusal.reason).toBe('mismatch');
    }
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ kind: 'models', id: 'models.json', authority, reason: 'mismatch' });
  });

  it('a seal moved to another row, or passed off as another kind, is refused', () => {
    const { seals } = fixture();
    const row = { status: 'proposed', plan: 'rm -rf build' };
    const seal = seals.seal(authority, 'stream-work', 'wi-1', row);
    expect(seals.check(authority, 'stream-work', 'wi-2', row, seal).ok).toBe(false);
    expect(seals.check(authority, 'scope-key', 'wi-1', row, seal).ok).toBe(false);
  });

  it('an unsealed value, an empty seal and a made-up seal are refused', () => {
    const { seals } = fixture();
    for (const seal of [null, undefined, '', 'ed25519:AAAA', `ed25519:${Buffer.alloc(64).toString('base64')}`, `hmac:${'0'.repeat(64)}`, 'hmac:']) {
      const result = seals.check(authority, 'models', 'models.json', models, seal);
      expect(result.ok).toBe(false);
    }
  });

  it('without the key nothing counts, and nothing can be sealed', () => {
    const sealing = fixture();
    const seal = sealing.seals.seal(authority, 'models', 'models.json', models);
    const { seals, refusals } = fixture(authority === 'owner' ? { ownerKey: false } : { ledgerKey: false });
    const result = seals.check(authority, 'models', 'models.json', models, seal);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.refusal.reason).toBe('no-key');
    expect(refusals).toHaveLength(1);
    expect(() => seals.seal(authority, 'models', 'models.json', models)).toThrow(/not available/);
  });
});

describe('authorities do not stand in for each other', () => {
  it("a ledger MAC does not pass as the owner's signature, nor the reverse", () => {
    const { seals } = fixture();
    const mac = seals.seal('ledger', 'policy-in-force', 'files', { sha256: 'a'.repeat(64) });
    const signature = seals.seal('owner', 'policy-in-force', 'files', { sha256: 'a'.repeat(64) });
    expect(seals.check('owner', 'policy-in-force', 'files', { sha256: 'a'.repeat(64) }, mac).ok).toBe(false);
    expect(seals.check('ledger', 'policy-in-force', 'files', { sha256: 'a'.repeat(64) }, signature).ok).toBe(false);
  });

  it("another home's seal (another ledger key) is refused", () => {
    const a = fixture();
    const b = fixture();
    const seal = a.seals.seal('ledger', 'scope-key', 'owner', { hash: 'x' });
    expect(b.seals.check('ledger', 'scope-key', 'owner', { hash: 'x' }, seal).ok).toBe(false);
  });
});

describe('anchors in the OS keyring', () => {
  it('only the value last anchored counts: an older sealed value put back is refused', () => {
    const { seals, refusals } = fixture();
    const older = { planner: { ...models.planner, baseUrl: 'http://127.0.0.1:9/v1' } };
    seals.anchor('models', 'models.json', older);
    expect(seals.checkAnchored('models', 'models.json', older).ok).toBe(true);
    seals.anchor('models', 'models.json', models);
    expect(seals.checkAnchored('models', 'models.json', models).ok).toBe(true);
    const replayed = seals.checkAnchored('models', 'models.json', older);
    expect(replayed.ok).toBe(false);
    if (!replayed.ok) expect(replayed.refusal.reason).toBe('not-anchored');
    expect(refusals.map((r) => r.reason)).toEqual(['not-anchored']);
  });

  it('a deleted item is seen while the keyring still names it; removing the anchor makes absence count', () => {
    const { seals } = fixture();
    seals.anchor('models', 'models.json', models);
    expect(seals.checkAnchored('models', 'models.json', null).ok).toBe(false);
    seals.anchor('models', 'models.json', null);
    expect(seals.checkAnchored('models', 'models.json', null).ok).toBe(true);
  });

  it('a value never saved by Silas is refused; an unreadable anchor matches nothing', () => {
    const { seals, keyring } = fixture();
    const result = seals.checkAnchored('policy-in-force', '/home/p/files.yaml', { sha256: 'b'.repeat(64) });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.refusal.reason).toBe('unsealed');
    seals.anchor('policy-in-force', '/home/p/files.yaml', { sha256: 'b'.repeat(64) });
    const account = [...keyring.written][0]!;
    keyring.set(account, 'not json');
    expect(seals.checkAnchored('policy-in-force', '/home/p/files.yaml', { sha256: 'b'.repeat(64) }).ok).toBe(false);
  });

  it('one keyring account per item and home, never derived from the value', () => {
    expect(anchorAccount('/h', 'models', 'models.json')).toBe(anchorAccount('/h', 'models', 'models.json'));
    expect(anchorAccount('/h', 'models', 'models.json')).not.toBe(anchorAccount('/h2', 'models', 'models.json'));
    expect(anchorAccount('/h', 'models', 'a')).not.toBe(anchorAccount('/h', 'policy-in-force', 'a'));
    expect(anchorAccount('/h', 'models', 'a')).toMatch(/^sealed-[0-9a-f]{24}-[0-9a-f]{32}$/);
  });

  it('ids with line breaks are refused, so an id cannot forge the kind/id framing', () => {
    const { seals } = fixture();
    expect(() => seals.seal('ledger', 'models', 'a\nb', {})).toThrow(/line breaks/);
  });
});
