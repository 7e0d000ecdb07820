import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { OwnerKeyVault, ownerAccountForHome } from '../keys/owner-key.js';
import { StateSeals } from '../keys/sealed-state.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';
import { loadSealedModels, modelsSealPath, saveSealedModels } from './sealed-models.js';
import { homeSeals } from './testing/sealed-models.js';

// models.json's seal and anchor (docs/silas/models.md, "models.json is sealed"): each way a process
// without the keyring can change the file is refused, with the reason the ledger records.
const tempDir = useTempDirs('silas-sealed-models-');
let home: string;
let store: MemorySecretStore;
let refused: [string, string][];

const role = (baseUrl: string) => ({ provider: 'openai-compatible', model: 'm', baseUrl, apiKeySecret: 'provider-key' });

beforeEach(() => {
  home = join(tempDir(), 'home');
  mkdirSync(home);
  store = new MemorySecretStore();
  new OwnerKeyVault(store, ownerAccountForHome(home)).ensure();
  refused = [];
});

const seals = () => homeSeals(home, store, (kind, reason) => refused.push([kind, reason]));
const file = () => join(home, 'models.json');

describe('models.json sealed with the owner key and anchored in the keyring', () => {
  it('what Silas saved is used; nothing is refused', () => {
    expect(saveSealedModels(home, { proxy: role('http://127.0.0.1:1/v1') }, seals()).ok).toBe(true);
    const loaded = loadSealedModels(home, seals());
    expect(loaded.ok && loaded.config.proxy?.baseUrl).toBe('http://127.0.0.1:1/v1');
    expect(JSON.parse(readFileSync(modelsSealPath(home), 'utf8'))).toMatchObject({ v: 1, seal: expect.stringMatching(/^ed25519:/) });
    expect(refused).toEqual([]);
  });

  it('a file never saved by Silas (a version before sealing, or by hand) is not used, and reported once', () => {
    writeFileSync(file(), JSON.stringify({ proxy: role('http://127.0.0.1:1/v1') }));
    const first = loadSealedModels(home, seals());
    expect(first).toMatchObject({ ok: false, refusal: { reason: 'unsealed' }, problem: expect.stringContaining('silas models adopt') });
    const s = seals();
    loadSealedModels(home, s);
    loadSealedModels(home, s);
    expect(refused).toEqual([
      ['models', 'unsealed'],
      ['models', 'unsealed'],
    ]);
  });

  it('an edit, an older sealed copy put back, and a removal are each refused', () => {
    saveSealedModels(home, { proxy: role('http://127.0.0.1:1/v1') }, seals());
    copyFileSync(file(), `${file()}.old`);
    copyFileSync(modelsSealPath(home), `${modelsSealPath(home)}.old`);
    saveSealedModels(home, { proxy: role('http://127.0.0.1:2/v1') }, seals());

    writeFileSync(file(), JSON.stringify({ proxy: role('http://127.0.0.1:3/v1') }));
    expect(loadSealedModels(home, seals())).toMatchObject({ ok: false, refusal: { reason: 'mismatch' } });

    copyFileSync(`${file()}.old`, file());
    copyFileSync(`${modelsSealPath(home)}.old`, modelsSealPath(home));
    expect(loadSealedModels(home, seals())).toMatchObject({ ok: false, refusal: { reason: 'not-anchored' } });

    rmSync(file());
    expect(loadSealedModels(home, seals())).toMatchObject({ ok: false, exists: false, refusal: { reason: 'not-anchored' }, problem: expect.stringContaining('removed outside Silas') });
    expect(refused.map(([, reason]) => reason)).toEqual(['mismatch', 'not-anchored', 'not-anchored']);
  });

  it('a listing checks without reporting', () => {
    writeFileSync(file(), JSON.stringify({ proxy: role('http://127.0.0.1:1/v1') }));
    expect(loadSealedModels(home, seals(), { report: false }).ok).toBe(false);
    expect(refused).toEqual([]);
  });

  it('nothing is written without the owner key', () => {
    const locked = new StateSeals({ keys: { ledger: () => null, owner: () => null }, anchors: { store, absoluteHome: home } });
    expect(() => saveSealedModels(home, { proxy: role('http://127.0.0.1:1/v1') }, locked)).toThrow(/owner key is not available/);
    expect(() => readFileSync(file())).toThrow();
  });
});
