import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeUpgradeWindow, judgePolicyText, upgradeWindowOpen } from '../aip/policy/in-force.js';
import { signPolicyText } from '../aip/policy/sign.js';
import { OwnerKeyVault } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { memorySeals } from '../testing/seals.js';
import { useTempDirs } from '../testing/temp.js';
import { openHome } from './home.js';
import { adoptPoliciesFromBeforeAnchors } from './policy-upgrade.js';

// Policies in force after an upgrade (aip/policy/in-force.ts): a home from before anchors keeps its
// owner-signed policies in force once, and after that window nothing is trusted at first sight.
const tempDir = useTempDirs('silas-policy-upgrade-');
const policy = (tools: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: files\nspec:\n  mode: enforce\n  allowed_tools: [${tools}]\n`;

function fixture() {
  const signer = new OwnerKeyVault(new MemorySecretStore(), 'owner-upgrade').ensure().signer;
  const { seals, refusals } = memorySeals();
  const trustedKeys = new Map([[signer.fingerprint, signer.publicKey as Uint8Array]]);
  const dir = tempDir();
  mkdirSync(join(dir, 'policies'));
  const write = (name: string, text: string) => {
    const path = join(dir, 'policies', name);
    writeFileSync(path, text);
    return path;
  };
  const judge = (path: string, text: string) => judgePolicyText(text, { path, trustedKeys, seals });
  return { signer, seals, refusals, trustedKeys, write, judge };
}

describe('policies signed before they were anchored', () => {
  it('the first start of the runtime puts the owner-signed ones in force and closes the window; unsigned ones stay out', () => {
    const f = fixture();
    const signedText = signPolicyText(policy('read_file'), f.signer);
    const signed = f.write('files.yaml', signedText);
    const unsigned = f.write('notes.yaml', policy('read_file, write_file'));
    expect(upgradeWindowOpen(f.seals)).toBe(true);
    expect(adoptPoliciesFromBeforeAnchors([signed, unsigned], f.trustedKeys, f.seals)).toBe(1);
    expect(upgradeWindowOpen(f.seals)).toBe(false);
    expect(f.judge(signed, signedText).ok).toBe(true);
    expect(f.judge(unsigned, policy('read_file, write_file'))).toMatchObject({ ok: false, reason: 'unsigned' });
  });

  it('after the window, an owner-signed file at a path never put in force, or an older signed copy, is refused', () => {
    const f = fixture();
    const older = signPolicyText(policy('read_file, write_file'), f.signer);
    const current = signPolicyText(policy('read_file'), f.signer);
    const path = f.write('files.yaml', current);
    adoptPoliciesFromBeforeAnchors([path], f.trustedKeys, f.seals);
    // The looser version the person signed once, put back by a process without the keyring.
    expect(f.judge(path, older)).toMatchObject({ ok: false, reason: 'not_in_force' });
    // A signed copy dropped at a new path after the upgrade.
    const copy = f.write('copy.yaml', older);
    expect(f.judge(copy, older)).toMatchObject({ ok: false, reason: 'not_in_force' });
    expect(f.refusals.map((r) => r.reason)).toEqual(['not-anchored', 'unsealed']);
  });

  it('a new home closes the window at once: a signed file is not trusted at first sight', () => {
    const store = new MemorySecretStore();
    const ledger = openHome(join(tempDir(), 'home'), { create: true, keys: 'signer', secretStore: store });
    try {
      expect(upgradeWindowOpen(ledger.seals)).toBe(false);
      const path = join(ledger.paths.home, 'files.yaml');
      const text = signPolicyText(policy('read_file'), ledger.signer!);
      expect(judgePolicyText(text, { path, trustedKeys: ledger.trustedKeys(), seals: ledger.seals })).toMatchObject({ ok: false, reason: 'not_in_force' });
    } finally {
      ledger.close();
    }
  });

  it('while the window is open, a proxy that reads an owner-signed file first puts it in force itself', () => {
    const f = fixture();
    const text = signPolicyText(policy('read_file'), f.signer);
    const path = f.write('files.yaml', text);
    expect(f.judge(path, text).ok).toBe(true);
    closeUpgradeWindow(f.seals);
    expect(f.judge(path, text).ok).toBe(true);
  });
});
