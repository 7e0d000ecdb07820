import { describe, expect, it } from 'vitest';
import {
  APPROVAL_SIGNED_FIELDS,
  ApprovalDecision,
  ApprovalScope,
  ApprovalToken,
  approvalCanonicalPayload,
  approvalSignedPayload,
  parseApprovalToken,
} from './approval.js';

const HASH = 'a'.repeat(64);
const SIGNATURE = `${'A'.repeat(85)}Q==`;

function token(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    token_id: 'b'.repeat(64),
    plan_hash: HASH,
    work_item_id: 'task-1',
    scope: 'full_plan',
    verdict: 'approved',
    signature: SIGNATURE,
    issued_at: '2026-03-01T10:00:00.000Z',
    expires_at: '2026-03-01T10:30:00.000Z',
    nonce: 'n1',
    approval_strength: 'tap',
    conditions: { b: 1, a: 'x' },
    executions_used: 0,
    max_executions: 1,
    execution_nonces: [],
    key_fingerprint: 'ed25519:0123',
    ...overrides,
  };
}

describe('ApprovalToken wire form', () => {
  it('accepts a token and round-trips through JSON unchanged, signature as a base64 string', () => {
    const parsed = ApprovalToken.parse(token());
    expect(ApprovalToken.parse(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
    expect(typeof parsed.signature).toBe('string');
  });

  it.each([
    ['base64url alphabet', `${'-'.repeat(85)}Q==`],
    ['missing padding', `${'A'.repeat(86)}`],
    ['a 63-byte signature', `${'A'.repeat(84)}=`],
    ['non-canonical trailing bits', `${'A'.repeat(85)}B==`],
    ['embedded whitespace', `${'A'.repeat(84)} Q==`],
  ])('refuses a signature with %s', (_label, signature) => {
    const result = parseApprovalToken(token({ signature }));
    expect(result).toMatchObject({ ok: false });
    expect(!result.ok && result.error).toMatch(/^approval_token\.signature: /);
  });

  it('refuses timestamps that are not UTC instants, and an expiry not after issuance', () => {
    expect(parseApprovalToken(token({ issued_at: '2026-03-01T10:00:00+02:00' }))).toMatchObject({ ok: false, error: expect.stringMatching(/issued_at/) });
    expect(parseApprovalToken(token({ expires_at: '2026-03-01' }))).toMatchObject({ ok: false, error: expect.stringMatching(/expires_at/) });
    expect(parseApprovalToken(token({ expires_at: '2026-03-01T10:00:00.000Z' }))).toMatchObject({ ok: false, error: expect.stringMatching(/expires_at must be later/) });
  });

  it('refuses unknown fields, counters beyond the limit and a standing token without spawn_policy_hash', () => {
    expect(parseApprovalToken(token({ admin: true }))).toMatchObject({ ok: false });
    expect(parseApprovalToken(token({ executions_used: 2 }))).toMatchObject({ ok: false, error: expect.stringMatching(/executions_used cannot exceed/) });
    expect(parseApprovalToken(token({ max_executions: 0 }))).toMatchObject({ ok: false, error: expect.stringMatching(/max_executions/) });
    expect(parseApprovalToken(token({ scope: 'standing', conditions: {} }))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/conditions\.spawn_policy_hash/),
    });
    expect(parseApprovalToken(token({ scope: 'standing', conditions: { spawn_policy_hash: HASH } }))).toMatchObject({ ok: true });
    expect(parseApprovalToken(token({ approval_strength: 'biometric' }))).toMatchObject({ ok: false, error: expect.stringMatching(/approval_strength/) });
    expect(parseApprovalToken('not a token')).toMatchObject({ ok: false, error: expect.stringMatching(/^approval_token\.\(token\)/) });
  });

  it('lists every scope of §3.6', () => {
    expect(ApprovalScope.options).toHaveLength(12);
    expect(ApprovalScope.options).toContain('standing');
    expect(ApprovalScope.options).toContain('autonomy_threshold');
  });
});

describe('ApprovalDecision', () => {
  it('defaults to tap strength and no conditions, and refuses unknown verdicts', () => {
    expect(ApprovalDecision.parse({ verdict: 'approved' })).toEqual({ verdict: 'approved', approval_strength: 'tap', conditions: {} });
    expect(ApprovalDecision.safeParse({ verdict: 'maybe' }).success).toBe(false);
    expect(ApprovalDecision.safeParse({ verdict: 'approved', extra: 1 }).success).toBe(false);
  });
});

describe('signed payload', () => {
  it('is exactly the ten fields of §3.6, approval_strength included, runtime state excluded', () => {
    const payload = approvalSignedPayload(ApprovalToken.parse(token()));
    expect(Object.keys(payload).sort()).toEqual([...APPROVAL_SIGNED_FIELDS].sort());
    expect(APPROVAL_SIGNED_FIELDS).toContain('approval_strength');
    for (const excluded of ['token_id', 'signature', 'executions_used', 'execution_nonces', 'key_fingerprint']) {
      expect(payload).not.toHaveProperty(excluded);
    }
  });

  it('serialises to the golden canonical form: sorted keys, no whitespace', () => {
    expect(approvalCanonicalPayload(ApprovalToken.parse(token()))).toBe(
      '{"approval_strength":"tap","conditions":{"a":"x","b":1},"expires_at":"2026-03-01T10:30:00.000Z","issued_at":"2026-03-01T10:00:00.000Z",' +
        `"max_executions":1,"nonce":"n1","plan_hash":"${HASH}","scope":"full_plan","verdict":"approved","work_item_id":"task-1"}`,
    );
  });
});
