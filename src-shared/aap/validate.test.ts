import { describe, expect, it } from 'vitest';
import { formatIssue, formatPath } from './issues.js';
import { validateAlignmentCard } from './validate-card.js';
import { validateApTrace } from './validate-trace.js';

const NOW = new Date('2026-03-01T00:00:00Z');

function card(overrides: Record<string, unknown> = {}) {
  return {
    aap_version: '0.1.0',
    card_id: 'ac-1',
    agent_id: 'did:web:agent.example',
    issued_at: '2026-01-31T12:00:00Z',
    principal: { type: 'human', relationship: 'delegated_authority' },
    values: { declared: ['principal_benefit', 'transparency'] },
    autonomy_envelope: {
      bounded_actions: ['search', 'recommend'],
      escalation_triggers: [
        { condition: 'action_type == "purchase"', action: 'escalate', reason: 'Purchases need approval' },
        { condition: 'amount > 100', action: 'escalate', reason: 'Spending limit' },
      ],
      forbidden_actions: ['share_credentials'],
    },
    audit_commitment: { retention_days: 90, queryable: false, trace_format: 'ap-trace-v1' },
    ...overrides,
  };
}

const errorsOf = (input: unknown, options: Partial<Parameters<typeof validateAlignmentCard>[1]> = {}) => validateAlignmentCard(input, { now: NOW, ...options }).errors;
const pathsOf = (input: unknown) => errorsOf(input).map((e) => e.path);

describe('Alignment Card schema errors name the JSON path and what was expected', () => {
  it('accepts a valid card and returns it', () => {
    const result = validateAlignmentCard(card(), { now: NOW });
    expect(result).toMatchObject({ ok: true, errors: [], warnings: [] });
    expect(result.card?.card_id).toBe('ac-1');
  });

  it('points at a wrongly typed trigger condition', () => {
    const bad = card();
    (bad.autonomy_envelope.escalation_triggers[1] as Record<string, unknown>).condition = 100;
    const [error] = errorsOf(bad);
    expect(error).toEqual({ path: 'autonomy_envelope.escalation_triggers[1].condition', message: 'expected a string, got number', expected: 'a string' });
    expect(formatIssue(error!)).toBe('autonomy_envelope.escalation_triggers[1].condition: expected a string, got number');
  });

  it('says what is missing, which enum values are allowed and which format a date needs', () => {
    const errors = errorsOf(card({ principal: { type: 'robot' }, issued_at: 'yesterday', audit_commitment: { retention_days: 0, queryable: false } }));
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'principal.type', message: 'expected one of "human", "organization", "agent", "unspecified", got "robot"', expected: 'one of "human", "organization", "agent", "unspecified"' },
        { path: 'principal.relationship', message: 'missing; expected one of "delegated_authority", "advisory", "autonomous"', expected: 'one of "delegated_authority", "advisory", "autonomous"' },
        expect.objectContaining({ path: 'issued_at', message: expect.stringMatching(/^expected an RFC 3339 date-time .*, got "yesterday"$/) }),
        expect.objectContaining({ path: 'audit_commitment.retention_days', expected: 'a value of at least 1' }),
      ]),
    );
  });

  it('refuses a document that is not an object at all', () => {
    expect(errorsOf([])).toEqual([{ path: '', message: 'expected an object, got array', expected: 'an object' }]);
  });

  it('quotes member names that are not identifiers', () => {
    expect(formatPath(['values', 'definitions', 'my.value', 'name'])).toBe('values.definitions["my.value"].name');
    expect(formatPath([0, 'trace_id'])).toBe('[0].trace_id');
  });
});

describe('Alignment Card rules beyond the schema (spec 003 §4)', () => {
  it('requires a definition for every custom value (§4.4 MUST)', () => {
    const custom = card({ values: { declared: ['principal_benefit', 'accuracy', 'customer_satisfaction'] } });
    const errors = errorsOf(custom);
    expect(errors.map((e) => e.path)).toEqual(['values.declared[1]', 'values.declared[2]']);
    expect(errors[0]!.message).toMatch(/custom value "accuracy" is not defined in values.definitions/);
    expect(errors[0]!.expected).toMatch(/values\.definitions\.accuracy/);
    const defined = card({ values: { declared: ['principal_benefit', 'accuracy'], definitions: { accuracy: { name: 'Accuracy', description: 'Cite sources' } } } });
    expect(errorsOf(defined)).toEqual([]);
  });

  it('refuses an expired card and one issued in the future, allowing clock skew', () => {
    expect(pathsOf(card({ expires_at: '2026-02-01T00:00:00Z' }))).toEqual(['expires_at']);
    expect(errorsOf(card({ expires_at: '2026-02-01T00:00:00Z' }))[0]!.message).toMatch(/expired at 2026-02-01T00:00:00Z/);
    expect(pathsOf(card({ expires_at: '2026-01-01T00:00:00Z' }))).toEqual(['expires_at']);
    expect(errorsOf(card({ expires_at: '2026-01-01T00:00:00Z' }))[0]!.message).toMatch(/not after issued_at/);
    expect(pathsOf(card({ expires_at: '2027-01-01T00:00:00Z' }))).toEqual([]);
    expect(pathsOf(card({ issued_at: '2026-03-01T00:10:00Z' }))).toEqual(['issued_at']);
    expect(pathsOf(card({ issued_at: '2026-03-01T00:04:00Z' }))).toEqual([]);
    expect(errorsOf(card({ issued_at: '2026-03-01T00:04:00Z' }), { clockSkewMs: 0 }).map((e) => e.path)).toEqual(['issued_at']);
  });

  it('refuses a condition the injected compiler rejects, at the trigger path; the renderer may leave them unchecked', () => {
    const checkCondition = (condition: string) => (condition.includes('>') ? 'column 8: not supported here' : null);
    const errors = errorsOf(card(), { checkCondition });
    expect(errors).toEqual([expect.objectContaining({ path: 'autonomy_envelope.escalation_triggers[1].condition', message: 'column 8: not supported here' })]);
    expect(errorsOf(card())).toEqual([]);
  });

  it('requires a query endpoint for a queryable card (§4.7)', () => {
    expect(pathsOf(card({ audit_commitment: { retention_days: 30, queryable: true } }))).toEqual(['audit_commitment.query_endpoint']);
    expect(pathsOf(card({ audit_commitment: { retention_days: 30, queryable: true, query_endpoint: 'https://a.example/traces' } }))).toEqual([]);
  });

  it('refuses contradictions: bounded and forbidden, declared and conflicting, empty ids, negative limits', () => {
    const contradictory = card({
      card_id: ' ',
      values: { declared: ['principal_benefit', 'transparency'], conflicts_with: ['transparency'] },
      autonomy_envelope: { bounded_actions: ['search'], escalation_triggers: [], forbidden_actions: ['search'], max_autonomous_value: { amount: -1 } },
    });
    expect(pathsOf(contradictory)).toEqual(['card_id', 'values.conflicts_with[0]', 'autonomy_envelope.forbidden_actions[0]', 'autonomy_envelope.max_autonomous_value.amount']);
  });

  it('warns when aap_version or trace_format, REQUIRED by §4.2 and §4.7 but defaulted by the schema, is missing', () => {
    const { aap_version: _version, ...bare } = card({ audit_commitment: { retention_days: 90, queryable: false } });
    const result = validateAlignmentCard(bare, { now: NOW });
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.path)).toEqual(['aap_version', 'audit_commitment.trace_format']);
  });

  it('warns about repetitions, stray definitions and extensions that are not namespaced objects', () => {
    const result = validateAlignmentCard(
      card({
        values: { declared: ['honesty', 'honesty'], definitions: { privacy: { name: 'Privacy', description: 'x' } } },
        extensions: { a2a: { agent_card_url: 'https://a' }, flag: true },
      }),
      { now: NOW },
    );
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.path)).toEqual(['values.declared[1]', 'values.definitions.privacy', 'extensions.flag']);
  });
});

describe('AP-Trace validation (spec 003 §5)', () => {
  const trace = (decision: Record<string, unknown> = {}) => ({
    trace_id: 'tr-1',
    agent_id: 'agent',
    card_id: 'ac-1',
    timestamp: '2026-01-31T12:00:00Z',
    action: { type: 'recommend', name: 'recommend', category: 'bounded' },
    decision: { alternatives_considered: [{ option_id: 'A', description: 'a', score: 0.9 }], selected: 'A', selection_reasoning: 'r', values_applied: [], ...decision },
  });

  it('accepts a valid trace', () => {
    expect(validateApTrace(trace())).toMatchObject({ ok: true, errors: [] });
  });

  it('names schema problems by path', () => {
    const result = validateApTrace(trace({ alternatives_considered: [{ option_id: 'A', description: 'a', score: 1.5 }], confidence: 'high' }));
    expect(result.errors.map(formatIssue)).toEqual(['decision.alternatives_considered[0].score: expected a value of at most 1, got 1.5', 'decision.confidence: expected a number, got string']);
    expect(validateApTrace(trace({ alternatives_considered: [] })).errors.map((e) => e.path)).toEqual(['decision.alternatives_considered']);
  });

  it('requires the selected option among the alternatives, each option id once', () => {
    const result = validateApTrace(trace({ alternatives_considered: [{ option_id: 'A', description: 'a' }, { option_id: 'A', description: 'b' }], selected: 'B' }));
    expect(result.errors.map((e) => e.path)).toEqual(['decision.alternatives_considered[1].option_id', 'decision.selected']);
    expect(result.errors[1]!.expected).toBe('one of "A"');
  });
});
