import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditEventData, AuditEventName } from '../../src-shared/audit/events.js';
import { ApprovalScope, ApprovalToken, approvalCanonicalPayload, type ApprovalToken as Token } from '../../src-shared/silas/approval.js';
import { useTempDirs } from '../testing/temp.js';
import { ApprovalEngine } from './engine.js';
import { approvalSigningBytes, deriveTokenId, payloadHash, resolveApprovalStrength } from './signing.js';
import { POLICY, engineFixture, goal, hashOf, otherSigner, spawned, task } from './testing/engine.js';

const tempDir = useTempDirs();
const APPROVED = { verdict: 'approved' };
const MINUTE = 60_000;

describe('issueToken', () => {
  it('signs the canonical payload of §3.6 with the owner key and audits the issuance', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), APPROVED);
    expect(token).toMatchObject({
      plan_hash: hashOf('plan v1'),
      work_item_id: 'task-1',
      scope: 'full_plan',
      verdict: 'approved',
      approval_strength: 'tap',
      issued_at: '2026-03-01T10:00:00.000Z',
      expires_at: '2026-03-01T10:30:00.000Z',
      max_executions: 1,
      executions_used: 0,
      execution_nonces: [],
      key_fingerprint: f.ledger.signer.fingerprint,
    });
    const bytes = Buffer.from(approvalCanonicalPayload(token), 'utf8');
    expect(f.ledger.signer.verify(bytes, Buffer.from(token.signature, 'base64'))).toBe(true);
    expect(token.token_id).toBe(hashOf(approvalCanonicalPayload(token)));
    expect(f.events('silas.approval.issued')).toEqual([expect.objectContaining({ token_id: token.token_id, plan_hash: token.plan_hash, scope: 'full_plan' })]);
  });

  it('gives every token a fresh nonce and id', () => {
    const f = engineFixture(tempDir());
    const a = f.engine.issueToken(task(), APPROVED);
    const b = f.engine.issueToken(task(), APPROVED);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.token_id).not.toBe(b.token_id);
  });

  it('refuses bad requests with the field named', () => {
    const f = engineFixture(tempDir());
    expect(() => f.engine.issueToken(task(), { verdict: 'maybe' })).toThrow(/decision\.verdict/);
    expect(() => f.engine.issueToken({ kind: 'plan', id: 'x', hash: 'abc' }, APPROVED)).toThrow(/subject\.hash/);
    expect(() => f.engine.issueToken(task(), APPROVED, { maxExecutions: 3 })).toThrow(/only allowed for a standing approval/);
    expect(() => f.engine.issueToken(task(), APPROVED, { ttlMs: 10 })).toThrow(/ttlMs/);
    expect(() => f.engine.issueToken(goal('g', null), APPROVED, { scope: 'standing', maxExecutions: 5 })).toThrow(/spawn-policy hash/);
    expect(() => f.engine.issueToken(goal(), { verdict: 'approved', conditions: { spawn_policy_hash: hashOf('other') } }, { scope: 'standing' })).toThrow(
      /differs from the goal spawn-policy hash/,
    );
    const keyless = new ApprovalEngine({ db: f.ledger.db, audit: f.ledger.audit });
    expect(() => keyless.issueToken(task(), APPROVED)).toThrow(/needs the owner key/);
  });

  it('embeds the goal spawn-policy hash in a standing token', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(goal(), APPROVED, { scope: 'standing', maxExecutions: 5, ttlMs: 7 * 24 * 60 * MINUTE });
    expect(token.conditions).toEqual({ spawn_policy_hash: POLICY });
    expect(token.max_executions).toBe(5);
  });

  it('applies the scope minimum strength policy: tap for every scope by default, a stronger tier is refused', () => {
    for (const scope of ApprovalScope.options) expect(resolveApprovalStrength(scope, 'tap')).toBe('tap');
    expect(() => resolveApprovalStrength('self_update', 'tap', { self_update: 'biometric' })).toThrow(/cannot collect/);
    const f = engineFixture(tempDir(), { scopeMinStrength: { self_update: 'biometric' } });
    expect(() => f.engine.issueToken(task(), APPROVED, { scope: 'self_update' })).toThrow(/approval\.scope_min_strength\.self_update/);
    expect(f.engine.issueToken(task(), APPROVED, { scope: 'skill_install' }).approval_strength).toBe('tap');
  });
});

describe('verify and check, single-use', () => {
  it('verify consumes exactly one execution; check then passes and consumes none', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), APPROVED);
    expect(f.engine.check(token, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_NOT_CONSUMED' });

    const result = f.engine.verify(token, task());
    expect(result).toMatchObject({ ok: true, reason: 'Valid', executionIndex: 1 });
    if (!result.ok) throw new Error('unreachable');
    expect(result.token.executions_used).toBe(1);
    expect(result.token.execution_nonces).toEqual([result.executionNonce]);
    expect(result.consumptionKey).toBe(`${token.token_id}:${token.plan_hash}:1`);
    expect(f.count('silas_approval_consumptions')).toBe(1);
    expect(f.count('silas_nonces')).toBe(1);

    expect(f.engine.check(result.token, task())).toEqual({ ok: true, reason: 'Valid' });
    expect(f.engine.check(token, task())).toEqual({ ok: true, reason: 'Valid' });
    expect(f.count('silas_approval_consumptions')).toBe(1);
    expect(f.count('silas_nonces')).toBe(1);
    expect(f.events('silas.approval.consumed')).toEqual([expect.objectContaining({ token_id: token.token_id, execution_index: 1 })]);
  });

  it('the verified token round-trips as JSON with its base64 signature and still checks', () => {
    const f = engineFixture(tempDir());
    const verified = f.engine.verify(f.engine.issueToken(task(), APPROVED), task());
    if (!verified.ok) throw new Error(verified.reason);
    const wire = JSON.parse(JSON.stringify({ approval_token: verified.token })) as { approval_token: Token };
    expect(ApprovalToken.parse(wire.approval_token)).toEqual(verified.token);
    expect(f.engine.check(wire.approval_token, task())).toMatchObject({ ok: true });
  });

  it('refuses a replayed single-use token, even with its unsigned counters reset', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), APPROVED);
    expect(f.engine.verify(token, task()).ok).toBe(true);
    expect(f.engine.verify(token, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_REPLAY' });
    expect(f.engine.verify({ ...token, executions_used: 0, execution_nonces: [] }, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_REPLAY' });
    expect(f.count('silas_approval_consumptions')).toBe(1);
    expect(f.events('silas.approval.refused').map((e) => e.code)).toEqual(['E_APPROVAL_REPLAY', 'E_APPROVAL_REPLAY']);
  });

  it('refuses a plan edited after approval, at verify and at check', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), APPROVED);
    expect(f.engine.verify(token, task('task-1', 'plan v2'))).toMatchObject({ ok: false, code: 'E_APPROVAL_PLAN_HASH' });
    expect(f.engine.verify(token, task()).ok).toBe(true);
    expect(f.engine.check(token, task('task-1', 'plan v2'))).toMatchObject({ ok: false, code: 'E_APPROVAL_PLAN_HASH' });
    expect(f.engine.verify(token, task('task-2'))).toMatchObject({ ok: false, code: 'E_APPROVAL_WORK_ITEM' });
  });

  it('refuses an expired token at verify and at check, and one issued in the future', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), APPROVED, { ttlMs: 10 * MINUTE });
    const second = f.engine.issueToken(task('task-2'), APPROVED, { ttlMs: 10 * MINUTE });
    expect(f.engine.verify(second, task('task-2')).ok).toBe(true);
    f.advance(10 * MINUTE);
    expect(f.engine.verify(token, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_EXPIRED' });
    expect(f.engine.check(second, task('task-2'))).toMatchObject({ ok: false, code: 'E_APPROVAL_EXPIRED' });
    f.advance(-20 * MINUTE);
    expect(f.engine.verify(token, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_NOT_YET_VALID' });
  });

  it('authorises only an approved verdict; conditional only when the caller enforces conditions', () => {
    const f = engineFixture(tempDir());
    for (const verdict of ['declined', 'edit_requested', 'conditional']) {
      const token = f.engine.issueToken(task(), { verdict });
      expect(f.engine.verify(token, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_NOT_APPROVED' });
    }
    const lenient = new ApprovalEngine({ db: f.ledger.db, audit: f.ledger.audit, signer: f.ledger.signer, now: () => f.clock.now, allowConditional: true });
    const conditional = lenient.issueToken(task(), { verdict: 'conditional', conditions: { max_files: 3 } });
    expect(lenient.verify(conditional, task())).toMatchObject({ ok: true });
  });

  it('binds the scope: a budget approval does not authorise a plan; non-plan payloads verify under their own scope', () => {
    const f = engineFixture(tempDir());
    const budget = f.engine.issueToken(task(), APPROVED, { scope: 'budget' });
    expect(f.engine.verify(budget, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_SCOPE' });

    const proposal = { key: 'batch_review.default_size', from: 5, to: 8 };
    const subject = { kind: 'plan', id: 'proposal-7', hash: payloadHash(proposal) };
    const token = f.engine.issueToken(subject, APPROVED, { scope: 'autonomy_threshold' });
    expect(f.engine.verify(token, { kind: 'plan', id: 'proposal-7', hash: payloadHash({ ...proposal, to: 50 }) }, { scope: 'autonomy_threshold' })).toMatchObject({
      ok: false,
      code: 'E_APPROVAL_PLAN_HASH',
    });
    expect(f.engine.verify(token, subject)).toMatchObject({ ok: false, code: 'E_APPROVAL_SCOPE' });
    expect(f.engine.verify(token, subject, { scope: 'autonomy_threshold' })).toMatchObject({ ok: true });
  });
});

describe('atomicity', () => {
  it('when the audit entry cannot be written, nothing is consumed and the refusal says why', () => {
    const f = engineFixture(tempDir());
    let failConsumed = true;
    const audit = {
      append<E extends AuditEventName>(event: E, data: AuditEventData<E>) {
        if (event === 'silas.approval.consumed' && failConsumed) throw new Error('disk full');
        return f.ledger.audit.append(event, data);
      },
    };
    const engine = new ApprovalEngine({ db: f.ledger.db, audit, signer: f.ledger.signer, now: () => f.clock.now });
    const token = engine.issueToken(task(), APPROVED);
    expect(engine.verify(token, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_STORE', reason: expect.stringMatching(/disk full/) });
    expect(f.count('silas_approval_consumptions')).toBe(0);
    expect(f.count('silas_nonces')).toBe(0);
    expect(engine.check(token, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_NOT_CONSUMED' });
    failConsumed = false;
    expect(engine.verify(token, task())).toMatchObject({ ok: true, executionIndex: 1 });
  });
});

describe('tampered and forged tokens', () => {
  const subjectFor = (t: Token) => ({ kind: 'plan', id: t.work_item_id, hash: t.plan_hash });

  it.each<[string, (t: Token) => Partial<Token>]>([
    ['plan_hash', () => ({ plan_hash: hashOf('attacker plan') })],
    ['work_item_id', () => ({ work_item_id: 'task-evil' })],
    ['scope', () => ({ scope: 'single_step' })],
    ['verdict', () => ({ verdict: 'conditional' })],
    ['nonce', () => ({ nonce: 'fresh-nonce' })],
    ['issued_at', () => ({ issued_at: '2026-03-01T09:59:00.000Z' })],
    ['expires_at', () => ({ expires_at: '2027-03-01T10:00:00.000Z' })],
    ['max_executions', () => ({ max_executions: 1 })],
    ['conditions', (t) => ({ conditions: { ...t.conditions, extra: true } })],
  ])('refuses a token whose signed field %s was altered (E_APPROVAL_SIGNATURE)', (field, alter) => {
    const f = engineFixture(tempDir());
    const original = f.engine.issueToken(goal(), APPROVED, { scope: 'standing', maxExecutions: 2 });
    // Non-standing variant so single-field edits stay schema-valid; the scope edit keeps standing conditions.
    const token = field === 'max_executions' ? original : f.engine.issueToken(task(), APPROVED);
    const altered = { ...token, ...alter(token) } as Token;
    const options = altered.scope === 'single_step' ? { scope: 'single_step' as const } : altered.scope === 'standing' ? { spawned: spawned(1) } : {};
    const subject = altered.scope === 'standing' ? { ...subjectFor(altered), spawnPolicyHash: POLICY } : subjectFor(altered);
    expect(f.engine.verify(altered, subject, options)).toMatchObject({ ok: false, code: 'E_APPROVAL_SIGNATURE' });
    expect(f.count('silas_approval_consumptions')).toBe(0);
    const [entry] = f.events('silas.approval.refused');
    expect(entry).toMatchObject({ op: 'verify', code: 'E_APPROVAL_SIGNATURE', token_id: token.token_id });
    expect(JSON.stringify(entry)).not.toContain(token.signature);
  });

  it('refuses a forged signature, a signature by another key under the owner fingerprint, and an untrusted key', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), APPROVED);
    expect(f.engine.verify({ ...token, signature: randomBytes(64).toString('base64') }, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_SIGNATURE' });

    const attacker = otherSigner();
    const resigned = attacker.sign(approvalSigningBytes(token)).toString('base64');
    expect(f.engine.verify({ ...token, signature: resigned }, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_SIGNATURE' });
    expect(f.engine.verify({ ...token, signature: resigned, key_fingerprint: attacker.fingerprint }, task())).toMatchObject({
      ok: false,
      code: 'E_APPROVAL_UNKNOWN_KEY',
    });

    const foreign = new ApprovalEngine({ db: f.ledger.db, audit: f.ledger.audit, signer: attacker, now: () => f.clock.now }).issueToken(task(), APPROVED);
    expect(f.engine.verify(foreign, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_UNKNOWN_KEY' });
    expect(f.count('silas_approval_consumptions')).toBe(0);
  });

  it('refuses an edited token_id, which would otherwise open a fresh replay key', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), APPROVED);
    expect(f.engine.verify(token, task()).ok).toBe(true);
    expect(f.engine.verify({ ...token, token_id: hashOf('new id') }, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_TOKEN_ID' });
    expect(deriveTokenId(token)).toBe(token.token_id);
  });

  it('refuses malformed input naming the field, and audits it', () => {
    const f = engineFixture(tempDir());
    const token = f.engine.issueToken(task(), APPROVED);
    const { signature: _s, ...unsigned } = token;
    expect(f.engine.verify(unsigned, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_MALFORMED', reason: expect.stringMatching(/approval_token\.signature/) });
    expect(f.engine.check(null, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_MALFORMED' });
    expect(f.engine.verify({ ...token, signature: 'x'.repeat(100_000) }, task())).toMatchObject({ ok: false, code: 'E_APPROVAL_MALFORMED' });
    expect(f.events('silas.approval.refused').map((e) => e.code)).toEqual(['E_APPROVAL_MALFORMED', 'E_APPROVAL_MALFORMED', 'E_APPROVAL_MALFORMED']);
  });
});

describe('standing approvals', () => {
  function standing(dir: string, maxExecutions = 3) {
    const f = engineFixture(dir);
    const token = f.engine.issueToken(goal(), APPROVED, { scope: 'standing', maxExecutions, ttlMs: 24 * 60 * MINUTE });
    return { f, token };
  }

  it('authorises each spawned task once: verify at spawn plus check at execution is one nonce per task', () => {
    const { f, token } = standing(tempDir());
    const first = f.engine.verify(token, goal(), { spawned: spawned(1) });
    expect(first).toMatchObject({ ok: true, executionIndex: 1 });
    expect(f.engine.check(token, spawned(1))).toEqual({ ok: true, reason: 'Valid' });
    expect(f.count('silas_nonces')).toBe(1);
    expect(f.engine.check(token, spawned(2))).toMatchObject({ ok: false, code: 'E_APPROVAL_NOT_CONSUMED' });
    expect(f.engine.verify(token, goal(), { spawned: spawned(1) })).toMatchObject({ ok: false, code: 'E_APPROVAL_REPLAY' });
    expect(f.engine.verify(token, goal(), { spawned: spawned(2) })).toMatchObject({ ok: true, executionIndex: 2 });
    expect(f.count('silas_nonces')).toBe(2);
  });

  it('refuses once max_executions is exhausted', () => {
    const { f, token } = standing(tempDir(), 2);
    expect(f.engine.verify(token, goal(), { spawned: spawned(1) }).ok).toBe(true);
    expect(f.engine.verify(token, goal(), { spawned: spawned(2) }).ok).toBe(true);
    expect(f.engine.verify(token, goal(), { spawned: spawned(3) })).toMatchObject({ ok: false, code: 'E_APPROVAL_EXHAUSTED' });
    expect(f.engine.check(token, spawned(2))).toMatchObject({ ok: true });
  });

  it('requires a spawned task, its parent to be the goal, and its conformance to the bound spawn policy', () => {
    const { f, token } = standing(tempDir());
    expect(f.engine.verify(token, goal())).toMatchObject({ ok: false, code: 'E_APPROVAL_STANDING_SPAWNED_TASK_REQUIRED', reason: 'Standing verification requires spawned_task' });
    expect(f.engine.verify(token, goal(), { spawned: spawned(1, { parent: 'goal-2' }) })).toMatchObject({ ok: false, code: 'E_APPROVAL_SPAWN_PARENT' });
    expect(f.engine.verify(token, goal(), { spawned: spawned(1, { parent: null }) })).toMatchObject({ ok: false, code: 'E_APPROVAL_SPAWN_PARENT' });
    expect(f.engine.verify(token, goal(), { spawned: spawned(1, { spawnPolicyHash: hashOf('wider policy') }) })).toMatchObject({
      ok: false,
      code: 'E_APPROVAL_SPAWN_POLICY',
    });
    expect(f.engine.verify(token, goal(), { spawned: spawned(1, { spawnPolicyHash: null }) })).toMatchObject({ ok: false, code: 'E_APPROVAL_SPAWN_POLICY' });
    expect(f.engine.verify(token, goal('goal v2'), { spawned: spawned(1) })).toMatchObject({ ok: false, code: 'E_APPROVAL_PLAN_HASH' });
    expect(f.engine.verify(token, goal('goal v1', hashOf('edited policy')), { spawned: spawned(1) })).toMatchObject({ ok: false, code: 'E_APPROVAL_SPAWN_POLICY' });
    expect(f.engine.check(token, spawned(1, { parent: 'goal-2' }))).toMatchObject({ ok: false, code: 'E_APPROVAL_SPAWN_PARENT' });
    expect(f.count('silas_approval_consumptions')).toBe(0);
  });

  it('a spawned task edited after its authorisation fails check', () => {
    const { f, token } = standing(tempDir());
    expect(f.engine.verify(token, goal(), { spawned: spawned(1) }).ok).toBe(true);
    expect(f.engine.check(token, spawned(1, { hash: hashOf('fix task 1, edited') }))).toMatchObject({ ok: false, code: 'E_APPROVAL_NOT_CONSUMED' });
  });

  it('a single-use token cannot authorise a spawned task, and a standing token cannot pose as another scope', () => {
    const { f, token } = standing(tempDir());
    const plain = f.engine.issueToken(goal(), APPROVED);
    expect(f.engine.verify(plain, goal(), { spawned: spawned(1) })).toMatchObject({ ok: false, code: 'E_APPROVAL_SCOPE' });
    expect(f.engine.verify(token, goal(), { spawned: spawned(1), scope: 'full_plan' })).toMatchObject({ ok: false, code: 'E_APPROVAL_SCOPE' });
  });
});
