import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { OwnerKeyVault, type OwnerSigner } from '../../keys/owner-key.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { loadPolicyText, POLICY_SIGNATURE_INVALID } from './load.js';
import { PolicySignError, policySigningBytes, signPolicyText } from './sign.js';
import { failures, loaded, onlyFailure, policyText } from './testing/policy.js';

function newSigner(): OwnerSigner {
  return new OwnerKeyVault(new MemorySecretStore(), 'owner-test').ensure().signer;
}

function trust(...signers: OwnerSigner[]): { trustedKeys: Map<string, Uint8Array> } {
  return { trustedKeys: new Map(signers.map((s) => [s.fingerprint, s.publicKey])) };
}

const owner = newSigner();
const stranger = newSigner();

const source = [
  '# Production policy for the GitHub agent.',
  'apiVersion: aip.io/v1alpha2',
  'kind: AgentPolicy',
  'metadata:',
  '  name: production-agent   # DNS-style',
  '  version: "1.2.0"',
  'spec:',
  '  allowed_tools:',
  '    - read_file',
  "    - 'list_directory'",
  '  tool_rules:',
  '    - tool: fetch_url',
  '      allow_args:',
  '        url: "^https://github\\\\.com/.*"   # only GitHub',
  '',
].join('\n');

describe('signPolicyText / verification (§3.3.1)', () => {
  it('signs and verifies: round trip with the trusted key', () => {
    const signed = signPolicyText(source, owner);
    const result = loadPolicyText(signed, trust(owner));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.signedBy).toBe(owner.fingerprint);
    expect(result.policy.signature).toMatch(/^ed25519:[A-Za-z0-9+/]{86}==$/);
  });

  it('changes only the signature line: comments, quoting and order stay', () => {
    const signed = signPolicyText(source, owner);
    const before = source.split('\n');
    const after = signed.split('\n');
    expect(after).toHaveLength(before.length + 1);
    expect(after[4]).toMatch(/^ {2}signature: "ed25519:[A-Za-z0-9+/=]+"$/);
    expect([...after.slice(0, 4), ...after.slice(5)]).toEqual(before);
  });

  it('replaces an existing signature in place when re-signing', () => {
    const once = signPolicyText(source, stranger);
    const twice = signPolicyText(once, owner);
    expect(twice.split('\n')).toHaveLength(once.split('\n').length);
    expect(loadPolicyText(twice, trust(owner))).toMatchObject({ ok: true, signedBy: owner.fingerprint });
    expect(onlyFailure(twice, trust(stranger)).code).toBe(POLICY_SIGNATURE_INVALID);
  });

  it('keeps CRLF line endings and handles flow-style metadata', () => {
    const crlf = signPolicyText(source.replace(/\n/g, '\r\n'), owner);
    expect(crlf).not.toMatch(/[^\r]\n/);
    expect(loadPolicyText(crlf, trust(owner)).ok).toBe(true);
    const flow = signPolicyText('apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata: {name: flow-policy}\nspec: {allowed_tools: [a]}\n', owner);
    expect(loadPolicyText(flow, trust(owner))).toMatchObject({ ok: true, signedBy: owner.fingerprint });
  });

  it('signs the same bytes the hash covers, so signing leaves the policy hash unchanged', () => {
    const signed = signPolicyText(source, owner);
    const unsigned = loaded(source);
    const policy = loaded(signed, trust(owner));
    expect(policy.hash).toBe(unsigned.hash);
    expect(policySigningBytes(policy.document).toString('utf8')).toBe(canonicalJson(unsigned.document));
  });

  it('a third-party Ed25519 implementation verifies the signature over the canonical form', () => {
    const signed = signPolicyText(source, owner);
    const policy = loaded(signed, trust(owner));
    const signature = Buffer.from(policy.signature!.slice('ed25519:'.length), 'base64');
    const { metadata, ...rest } = policy.document as { metadata: Record<string, unknown> };
    const { signature: _dropped, ...unsignedMetadata } = metadata;
    const message = Buffer.from(canonicalJson({ ...rest, metadata: unsignedMetadata }), 'utf8');
    expect(nacl.sign.detached.verify(message, signature, owner.publicKey)).toBe(true);
  });

  it('a policy changed after signing is rejected with -32010', () => {
    const signed = signPolicyText(source, owner);
    const tampered = signed.replace('    - read_file\n', '    - read_file\n    - delete_file\n');
    const error = onlyFailure(tampered, trust(owner));
    expect(error).toMatchObject({ path: 'metadata.signature', line: 5, column: 14, code: -32010 });
    expect(error.message).toMatch(/^Policy signature invalid: it does not verify against any trusted key \(ed25519:[0-9a-f]{32}\)/);
  });

  it('even a change that only YAML formatting hides (a value, not the layout) is caught', () => {
    const signed = signPolicyText(source, owner);
    expect(loadPolicyText(signed.replace('# only GitHub', '# edited comment'), trust(owner)).ok).toBe(true);
    expect(onlyFailure(signed.replace('"1.2.0"', '"1.2.1"'), trust(owner)).code).toBe(-32010);
  });

  it('a signature by an untrusted key is rejected with -32010', () => {
    const signed = signPolicyText(source, stranger);
    expect(onlyFailure(signed, trust(owner))).toMatchObject({ code: -32010, message: expect.stringContaining('does not verify against any trusted key') });
    expect(loadPolicyText(signed, trust(owner, stranger))).toMatchObject({ ok: true, signedBy: stranger.fingerprint });
  });

  it('a signed policy with no trusted keys is rejected with -32010', () => {
    const signed = signPolicyText(source, owner);
    expect(onlyFailure(signed)).toMatchObject({ code: -32010, message: 'Policy signature invalid: no trusted public key was given to verify it, so it cannot be checked' });
  });

  const good = signPolicyText(source, owner);
  const goodValue = /signature: "([^"]+)"/.exec(good)![1]!;
  it.each([
    ['no algorithm', 'YWJj', 'expected "ed25519:<base64 signature>"'],
    ['another algorithm', `ecdsa-p256:${goodValue.slice(8)}`, 'unsupported signature algorithm "ecdsa-p256"'],
    ['not base64', 'ed25519:!!!!', 'not standard base64'],
    ['base64url', `ed25519:${Buffer.from(goodValue.slice(8), 'base64').toString('base64url')}`, 'not standard base64'],
    ['too short', `ed25519:${Buffer.alloc(63).toString('base64')}`, 'decodes to 63'],
    ['too long', `ed25519:${Buffer.alloc(65).toString('base64')}`, 'decodes to 65'],
    ['empty', 'ed25519:', 'decodes to 0'],
    ['all zero', `ed25519:${Buffer.alloc(64).toString('base64')}`, 'does not verify'],
    ['one bit flipped', `ed25519:${flipBit(goodValue.slice(8))}`, 'does not verify'],
  ])('a malformed signature (%s) is rejected with -32010', (_label, value, message) => {
    const text = good.replace(goodValue, value);
    expect(onlyFailure(text, trust(owner))).toMatchObject({ path: 'metadata.signature', code: -32010, message: expect.stringContaining(message) });
  });

  it('a signature that is not a string is a schema error, not a verification', () => {
    expect(onlyFailure(policyText('  {}\n', { metadata: '  signature: 42\n' }), trust(owner))).toMatchObject({ path: 'metadata.signature', message: expect.stringContaining('got the number 42') });
  });

  it('never returns a policy when the signature fails, even if everything else is valid', () => {
    const result = loadPolicyText(good.replace('read_file', 'reed_file'), trust(owner));
    expect(result).toEqual({ ok: false, errors: [expect.objectContaining({ code: -32010 })] });
  });

  it('requireSignature refuses an unsigned policy with -32010', () => {
    expect(onlyFailure(source, { ...trust(owner), requireSignature: true })).toMatchObject({ code: -32010, message: expect.stringContaining('not signed') });
    expect(loadPolicyText(good, { ...trust(owner), requireSignature: true }).ok).toBe(true);
  });

  it('refuses to sign an invalid policy or a v1alpha1 policy', () => {
    expect(() => signPolicyText(source.replace('allowed_tools', 'alowed_tools'), owner)).toThrow(PolicySignError);
    try {
      signPolicyText(source.replace('allowed_tools', 'alowed_tools'), owner);
    } catch (error) {
      expect((error as PolicySignError).errors).toEqual([expect.objectContaining({ path: 'spec.alowed_tools', line: 8 })]);
    }
    expect(() => signPolicyText(source.replace('v1alpha2', 'v1alpha1'), owner)).toThrow(/aip\.io\/v1alpha2 feature/);
    expect(() => signPolicyText(': [', owner)).toThrow(PolicySignError);
  });

  it('re-signs a policy whose old signature no longer verifies', () => {
    const stale = good.replace('read_file', 'read_files');
    expect(failures(stale, trust(owner))[0]!.code).toBe(-32010);
    expect(loadPolicyText(signPolicyText(stale, owner), trust(owner)).ok).toBe(true);
  });
});

function flipBit(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[10] = bytes[10]! ^ 0x01;
  return bytes.toString('base64');
}
