import { describe, expect, it } from 'vitest';
import { validatePolicyDraft } from './validate-draft.js';

// The editor's check (docs/policy-editor.md "Validation as the person types"): the enforcing
// loader, every problem at its line and column.
describe('validatePolicyDraft', () => {
  const head = 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: draft\nspec:\n';

  it('a typo\'d key is an error at its line and column with the "did you mean" hint; fixed, the draft loads with its hash', () => {
    const typo = validatePolicyDraft(`${head}  mode: enforce\n  alowed_tools: [read_file]\n`);
    expect(typo.ok).toBe(false);
    expect(typo.hash).toBeNull();
    expect(typo.diagnostics).toEqual([expect.objectContaining({ severity: 'error', line: 7, column: 3, message: expect.stringContaining('(did you mean "allowed_tools"?)') })]);
    const fixed = validatePolicyDraft(`${head}  mode: enforce\n  allowed_tools: [read_file]\n`);
    expect(fixed).toMatchObject({ ok: true, diagnostics: [], hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('warnings keep their position; broken YAML and hostile input are errors, never throws', () => {
    const broken = validatePolicyDraft(`${head}  mode: [enforce\n`);
    expect(broken.ok).toBe(false);
    expect(broken.diagnostics[0]!.line).toBeGreaterThan(0);
    const bomb = validatePolicyDraft(`${head}  a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n  d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n`);
    expect(bomb.ok).toBe(false);
    expect(validatePolicyDraft('').ok).toBe(false);
  });
});

describe('validatePolicyDraft on a signed policy', () => {
  it('does not check the signature of a draft (saving signs it anew), so a saved policy being edited shows no error', async () => {
    const { generateEd25519, rawPublicKey } = await import('../../keys/ed25519.js');
    const { signPolicyText } = await import('../policy/sign.js');
    const { keyFingerprint } = await import('../../keys/ed25519.js');
    const { privateKey, publicKey } = generateEd25519();
    const raw = rawPublicKey(publicKey);
    const { signEd25519 } = await import('../../keys/ed25519.js');
    const signer = { fingerprint: keyFingerprint(raw), publicKey: raw, sign: (m: Uint8Array) => signEd25519(privateKey, m), verify: () => true };
    const signed = signPolicyText('apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: s\nspec:\n  mode: enforce\n  allowed_tools: [read_file]\n', signer);
    expect(validatePolicyDraft(signed)).toMatchObject({ ok: true, diagnostics: [] });
    expect(validatePolicyDraft(signed.replace('read_file', 'write_file'))).toMatchObject({ ok: true, diagnostics: [] });
  });
});
