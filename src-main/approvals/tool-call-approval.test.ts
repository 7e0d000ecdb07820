import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { OwnerKeyVault } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { approvalSigningBytes, argumentsHash, checkToolCallApproval, signToolCallApproval } from './tool-call-approval.js';

const owner = new OwnerKeyVault(new MemorySecretStore(), 'owner').ensure().signer;
const attacker = new OwnerKeyVault(new MemorySecretStore(), 'attacker').ensure().signer;
const trusted = new Map([[owner.fingerprint, owner.publicKey as Uint8Array]]);
const binding = { server: 'files', tool: 'delete_file', args: { path: '/tmp/a', force: true }, requestId: 7, sessionId: 's-1' };
const now = new Date('2026-11-21T10:00:00Z');

describe('signed tool-call approvals', () => {
  it('verifies for exactly the call it binds, and tweetnacl agrees with the signature', () => {
    const approval = signToolCallApproval(binding, owner, now, 60_000);
    expect(checkToolCallApproval(approval, { ...binding, args: { force: true, path: '/tmp/a' } }, trusted, now)).toEqual({ ok: true, nonce: approval.payload.nonce });
    expect(nacl.sign.detached.verify(approvalSigningBytes(approval.payload), Buffer.from(approval.signature, 'base64'), owner.publicKey)).toBe(true);
  });

  it.each([
    ['another server', { server: 'other' }],
    ['another tool', { tool: 'read_file' }],
    ['other arguments', { args: { path: '/etc/passwd', force: true } }],
    ['another request id', { requestId: '7' }],
    ['another session', { sessionId: 's-2' }],
  ])('is refused for %s', (_label, change) => {
    const approval = signToolCallApproval(binding, owner, now, 60_000);
    expect(checkToolCallApproval(approval, { ...binding, ...change }, trusted, now).ok).toBe(false);
  });

  it('is refused when expired, forged, re-signed by another key, or edited', () => {
    const approval = signToolCallApproval(binding, owner, now, 60_000);
    expect(checkToolCallApproval(approval, binding, trusted, new Date(now.getTime() + 60_000))).toEqual({ ok: false, reason: 'approval has expired' });
    expect(checkToolCallApproval({ ...approval, signature: Buffer.alloc(64).toString('base64') }, binding, trusted, now)).toMatchObject({ ok: false, reason: 'approval signature is invalid' });
    const byAttacker = signToolCallApproval(binding, attacker, now, 60_000);
    expect(checkToolCallApproval(byAttacker, binding, trusted, now)).toMatchObject({ ok: false, reason: expect.stringContaining('unknown key') });
    const edited = { ...approval, payload: { ...approval.payload, expiresAt: '2099-01-01T00:00:00.000Z' } };
    expect(checkToolCallApproval(edited, binding, trusted, now)).toMatchObject({ ok: false, reason: 'approval signature is invalid' });
    expect(checkToolCallApproval('nonsense', binding, trusted, now).ok).toBe(false);
    expect(checkToolCallApproval({ payload: { type: 'other' } }, binding, trusted, now).ok).toBe(false);
  });

  it('hashes arguments canonically (key order does not matter, values do)', () => {
    expect(argumentsHash({ a: 1, b: [1, 2] })).toBe(argumentsHash({ b: [1, 2], a: 1 }));
    expect(argumentsHash({ a: 1 })).not.toBe(argumentsHash({ a: '1' }));
  });
});
