import { describe, expect, it } from 'vitest';
import { createTestLedger } from '../../testing/ledger.js';
import { useTempDirs } from '../../testing/temp.js';
import { otherSigner } from '../../approval/testing/engine.js';
import { ApprovalEngine } from '../../approval/engine.js';
import { hashOf } from '../../approval/testing/engine.js';
import { signApprovalFor } from '../testing/test-approver.js';
import { argumentsHash } from '../../approval/tool-call.js';
import { bindingOf } from '../../testing/approvals.js';
import { ApprovalConsumer } from './approval-consumer.js';

const tempDir = useTempDirs('silas-consumer-');

/** The proxy side of a tool-call approval: the approval engine's verify, on the proxy's ledger. */
function fixture() {
  const ledger = createTestLedger(tempDir());
  const keys = new Map([[ledger.signer.fingerprint, ledger.signer.publicKey as Uint8Array]]);
  const consumer = new ApprovalConsumer(ledger.db, ledger.audit, () => keys, undefined);
  const count = (table: string) => (ledger.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  const events = (name: string) => [...ledger.audit.since()].filter((e) => e.event === name).map((e) => e.data);
  return { ledger, consumer, count, events };
}

const request = { server: 'srv', tool: 'delete_file', args: { path: '/tmp/x' }, display: { path: '/tmp/x' }, requestId: 3, sessionId: 's1', rule: 'delete_file', reason: '', policyName: 'p' };
const binding = bindingOf({ server: 'srv', tool: 'delete_file', args: { path: '/tmp/x' }, requestId: 3, sessionId: 's1' });

describe('ApprovalConsumer: tool calls take the approval engine\'s tokens', () => {
  it('consumes a valid token once, in the transaction that records it, under the engine\'s consumption ledger; a replay is refused and audited', () => {
    const f = fixture();
    const token = signApprovalFor(request, f.ledger.signer);
    expect(token).toMatchObject({ scope: 'single_step', max_executions: 1, conditions: { server: 'srv', tool: 'delete_file', session_id: 's1', request_id: 3 } });
    const recorded: string[] = [];
    expect(f.consumer.consume(token, binding, (nonce) => recorded.push(nonce))).toMatchObject({ ok: true, nonce: token.nonce, keyFingerprint: f.ledger.signer.fingerprint });
    expect(f.consumer.consume(token, binding, (nonce) => recorded.push(nonce))).toEqual({ ok: false, reason: 'approval was already used (a replayed approval)' });
    expect(recorded).toEqual([token.nonce]);
    expect(f.count('silas_approval_consumptions')).toBe(1);
    expect(f.events('silas.approval.consumed')).toMatchObject([{ token_id: token.token_id, scope: 'single_step' }]);
    expect(f.events('silas.approval.refused')).toMatchObject([{ op: 'verify', code: 'E_APPROVAL_REPLAY', token_id: token.token_id }]);
  });

  it('a second proxy process on the same home cannot reuse the token either (one UNIQUE-keyed rule)', () => {
    const f = fixture();
    const token = signApprovalFor(request, f.ledger.signer);
    const keys = new Map([[f.ledger.signer.fingerprint, f.ledger.signer.publicKey as Uint8Array]]);
    const other = new ApprovalConsumer(f.ledger.db, f.ledger.audit, () => keys, undefined);
    expect(f.consumer.consume(token, binding, () => undefined).ok).toBe(true);
    expect(other.consume(token, binding, () => undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/replayed/) });
  });

  it('commits nothing when the allowed entry cannot be written: no consumption without its audit entry', () => {
    const f = fixture();
    const token = signApprovalFor(request, f.ledger.signer);
    const result = f.consumer.consume(token, binding, () => {
      throw new Error('disk full');
    });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('disk full') });
    expect(f.count('silas_approval_consumptions')).toBe(0);
    expect(f.events('silas.approval.consumed')).toEqual([]);
    // The token was never used, so it still lets the call through once the entry can be written.
    expect(f.consumer.consume(token, binding, () => undefined).ok).toBe(true);
  });

  it.each([
    ['another server', { server: 'other' }],
    ['another tool', { tool: 'read_file' }],
    ['another proxy session', { sessionId: 's2' }],
    ['another request id', { requestId: 4 }],
    ['other arguments', { argsHash: argumentsHash({ path: '/etc' }) }],
  ])('refuses a token for %s', (what, change) => {
    const f = fixture();
    const token = signApprovalFor(request, f.ledger.signer);
    expect(f.consumer.consume(token, { ...binding, ...change }, () => undefined)).toEqual({ ok: false, reason: `approval is for ${what}` });
    expect(f.count('silas_approval_consumptions')).toBe(0);
  });

  it('refuses altered, expired, foreign-key and malformed tokens, naming the problem', () => {
    const f = fixture();
    const altered = { ...signApprovalFor(request, f.ledger.signer), max_executions: 5 };
    expect(f.consumer.consume(altered, binding, () => undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/forged or altered|only allowed|standing/) });
    const token = signApprovalFor(request, f.ledger.signer);
    expect(f.consumer.consume({ ...token, expires_at: '2099-01-01T00:00:00.000Z' }, binding, () => undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/forged or altered/) });
    expect(f.consumer.consume({ ...token, signature: Buffer.alloc(64).toString('base64') }, binding, () => undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/forged or altered/) });
    const expired = signApprovalFor(request, f.ledger.signer, { now: new Date(Date.now() - 120_000), ttlMs: 60_000 });
    expect(f.consumer.consume(expired, binding, () => undefined)).toEqual({ ok: false, reason: 'approval has expired' });
    expect(f.consumer.consume(signApprovalFor(request, otherSigner()), binding, () => undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/not a trusted owner key/) });
    expect(f.consumer.consume('nonsense', binding, () => undefined)).toMatchObject({ ok: false });
    expect(f.consumer.consume({ outcome: 'approve' }, binding, () => undefined)).toMatchObject({ ok: false });
    expect(f.count('silas_approval_consumptions')).toBe(0);
  });

  it('refuses a plan token presented for a tool call: the scope is part of what is signed', () => {
    const f = fixture();
    const engine = new ApprovalEngine({ db: f.ledger.db, audit: f.ledger.audit, signer: f.ledger.signer });
    const planToken = engine.issueToken({ kind: 'plan', id: 'task-1', hash: hashOf('plan') }, { verdict: 'approved' });
    expect(f.consumer.consume(planToken, binding, () => undefined)).toMatchObject({ ok: false });
    expect(f.count('silas_approval_consumptions')).toBe(0);
  });
});
