import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { OwnerKeyVault } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { approvalSigningBytes, deriveTokenId } from './signing.js';
import { signApprovalFor } from '../mcp/testing/test-approver.js';
import { bindingOf } from '../testing/approvals.js';
import { argumentsHash, toolCallSubject } from './tool-call.js';

const owner = new OwnerKeyVault(new MemorySecretStore(), 'owner').ensure().signer;
const binding = { server: 'files', tool: 'delete_file', args: { path: '/tmp/a', force: true }, requestId: 7, sessionId: 's-1' };

describe('a tool call as the approval engine\'s subject', () => {
  it('is bound to every part of the call: each change gives another subject hash', () => {
    const base = toolCallSubject(bindingOf(binding));
    expect(base.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(toolCallSubject(bindingOf({ ...binding, args: { force: true, path: '/tmp/a' } }))).toEqual(base);
    for (const change of [{ server: 'other' }, { tool: 'read_file' }, { args: { path: '/etc/passwd', force: true } }, { requestId: '7' }, { sessionId: 's-2' }]) {
      const other = toolCallSubject(bindingOf({ ...binding, ...change }));
      expect(other.hash, JSON.stringify(change)).not.toBe(base.hash);
      expect(other.id).not.toBe(base.id);
    }
  });

  it('gets a token signed over the §3.6 fields that tweetnacl verifies, whose id is the hash of what is signed', () => {
    const token = signApprovalFor({ ...binding, display: binding.args, rule: 'delete_file', reason: '', policyName: 'p' }, owner);
    const subject = toolCallSubject(bindingOf(binding));
    expect(token).toMatchObject({ work_item_id: subject.id, plan_hash: subject.hash, scope: 'single_step', verdict: 'approved' });
    expect(nacl.sign.detached.verify(approvalSigningBytes(token), Buffer.from(token.signature, 'base64'), owner.publicKey)).toBe(true);
    expect(deriveTokenId(token)).toBe(token.token_id);
  });

  it('hashes arguments canonically (key order does not matter, values do)', () => {
    expect(argumentsHash({ a: 1, b: [1, 2] })).toBe(argumentsHash({ b: [1, 2], a: 1 }));
    expect(argumentsHash({ a: 1 })).not.toBe(argumentsHash({ a: '1' }));
  });
});
