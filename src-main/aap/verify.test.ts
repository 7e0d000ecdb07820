import { describe, expect, it } from 'vitest';
import { ApTrace } from '../../src-shared/aap/trace.js';
import { actionParts } from './action-names.js';
import { compileAlignmentCard, type CompiledCard } from './card.js';
import { CHECKS, verifyTrace } from './verify.js';

const NOW = new Date('2026-03-01T00:00:00Z');

function compiled(envelope: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): CompiledCard {
  const result = compileAlignmentCard({
    card_id: 'ac-1',
    agent_id: 'agent',
    issued_at: '2026-01-01T00:00:00Z',
    principal: { type: 'human', relationship: 'delegated_authority' },
    values: { declared: ['principal_benefit', 'transparency'] },
    autonomy_envelope: { bounded_actions: ['search', 'recommend', 'read_file'], escalation_triggers: [], forbidden_actions: ['delete_file'], ...envelope },
    audit_commitment: { retention_days: 90, queryable: false },
    ...extra,
  });
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join('; '));
  return result.compiled;
}

function trace(action: Record<string, unknown> = {}, rest: Record<string, unknown> = {}): ApTrace {
  return ApTrace.parse({
    trace_id: 'tr-1',
    agent_id: 'agent',
    card_id: 'ac-1',
    timestamp: '2026-02-01T00:00:00Z',
    action: { type: 'execute', name: 'search', category: 'bounded', ...action },
    decision: { alternatives_considered: [{ option_id: 'a', description: 'a', score: 0.9 }], selected: 'a', selection_reasoning: 'r', values_applied: ['principal_benefit'], confidence: 0.9 },
    escalation: { evaluated: true, required: false, reason: 'none' },
    ...rest,
  });
}

const types = (card: CompiledCard, t: ApTrace) => verifyTrace(t, card, { now: NOW }).violations.map((v) => v.type);

describe('§7 checks, in Appendix B.1 order', () => {
  it('performs every check and reports violations in that order', () => {
    const card = compiled({ escalation_triggers: [{ condition: 'amount > 10', action: 'escalate', reason: 'limit' }] }, { expires_at: '2026-01-15T00:00:00Z' });
    const result = verifyTrace(trace({ name: 'delete_file', parameters: { amount: 20 } }, { card_id: 'ac-other', decision: { alternatives_considered: [{ option_id: 'a', description: 'a' }], selected: 'a', selection_reasoning: 'r', values_applied: ['greed'] } }), card, { now: NOW });
    expect(result.verification_metadata.checks_performed).toEqual([...CHECKS]);
    expect(result.violations.map((v) => [v.type, v.severity, v.trace_field])).toEqual([
      ['card_mismatch', 'critical', 'card_id'],
      ['card_expired', 'high', 'timestamp'],
      ['unbounded_action', 'high', 'action.name'],
      ['forbidden_action', 'critical', 'action.name'],
      ['missed_escalation', 'high', 'escalation.required'],
      ['undeclared_value', 'medium', 'decision.values_applied[0]'],
    ]);
    expect(result).toMatchObject({ verified: false, recommended_action: 'deny', trace_id: 'tr-1', card_id: 'ac-1', timestamp: '2026-03-01T00:00:00.000Z' });
  });

  it('judges expiry at the time of the trace', () => {
    const card = compiled({}, { expires_at: '2026-02-15T00:00:00Z' });
    expect(types(card, trace())).toEqual([]);
    expect(types(card, trace({}, { timestamp: '2026-02-20T00:00:00Z' }))).toEqual(['card_expired']);
  });

  it('recommends proceed, review or deny', () => {
    const values = ['principal_benefit', 'transparency', 'honesty'];
    const card = compiled({ bounded_actions: ['search'], forbidden_actions: [] }, { values: { declared: values } });
    const clean = verifyTrace(trace({ type: 'recommend' }, { escalation: null, decision: { alternatives_considered: [{ option_id: 'a', description: 'a' }], selected: 'a', selection_reasoning: 'r', values_applied: values } }), card, { now: NOW });
    expect(clean.similarity_score).toBeCloseTo(4 / Math.sqrt(42), 12);
    expect(clean).toMatchObject({ verified: true, warnings: [], recommended_action: 'proceed' });
    expect(clean.verification_metadata.similarity_details).toEqual({
      similarities: [clean.similarity_score],
      mean_similarity: clean.similarity_score,
      trend: 0,
      shared_features: ['action_name:search', 'value:honesty', 'value:principal_benefit', 'value:transparency'],
    });
    const low = verifyTrace(trace(), compiled(), { now: NOW });
    expect(low.warnings.map((w) => w.type)).toEqual(['low_behavioral_similarity']);
    expect(low.recommended_action).toBe('review');
  });

  it('warns about low similarity only when there is no violation, and about scores near the 0.30 boundary', () => {
    const violating = verifyTrace(trace({ name: 'delete_file' }), compiled(), { now: NOW });
    expect(violating.warnings).toEqual([]);
    const near = trace({}, { decision: { alternatives_considered: [{ option_id: 'a', description: 'a', score: 0.31 }, { option_id: 'b', description: 'b', score: 0.45 }, { option_id: 'c', description: 'c', score: 0.25 }], selected: 'a', selection_reasoning: 'r', values_applied: [] } });
    const warnings = verifyTrace(near, compiled(), { now: NOW }).warnings;
    expect(warnings.filter((w) => w.type === 'near_boundary').map((w) => [w.trace_field, w.description])).toEqual([
      ['decision.alternatives_considered[0].score', 'Action score 0.31 near boundary threshold 0.30'],
      ['decision.alternatives_considered[2].score', 'Action score 0.25 near boundary threshold 0.30'],
    ]);
  });
});

describe('action names: exact membership, compound names', () => {
  it('matches names exactly', () => {
    expect(types(compiled(), trace({ name: 'Search' }))).toEqual(['unbounded_action']);
    expect(types(compiled(), trace({ name: 'search_all' }))).toEqual(['unbounded_action']);
    expect(types(compiled(), trace({ name: 'delete_files', category: 'forbidden' }))).toEqual([]);
  });

  it('forbids a compound name when any part is forbidden; bounds it only when listed whole (§7.3)', () => {
    expect(actionParts('search+delete_file')).toEqual(['search', 'delete_file']);
    expect(actionParts('fs/delete_file; rm')).toEqual(['fs', 'delete_file', 'rm']);
    expect(actionParts('vendor-coordination')).toEqual(['vendor-coordination']);
    expect(types(compiled(), trace({ name: 'search+delete_file' }))).toEqual(['unbounded_action', 'forbidden_action']);
    expect(types(compiled(), trace({ name: 'read_file, delete_file', category: 'forbidden' }))).toEqual(['forbidden_action']);
    expect(verifyTrace(trace({ name: 'search delete_file' }), compiled(), { now: NOW }).violations[1]!.description).toBe("Action 'search delete_file' is forbidden: its part 'delete_file' is in forbidden_actions");
    // Every part bounded, the whole name not listed: exact membership says unbounded.
    expect(types(compiled(), trace({ name: 'search+recommend' }))).toEqual(['unbounded_action']);
    expect(verifyTrace(trace({ name: 'search+recommend' }), compiled(), { now: NOW }).violations[0]!.description).toBe("Action 'search+recommend' not in bounded_actions");
    expect(types(compiled(), trace({ name: 'search+purchase' }))).toEqual(['unbounded_action']);
    expect(types(compiled({ bounded_actions: ['search', 'recommend', 'search+recommend'] }), trace({ name: 'search+recommend' }))).toEqual([]);
  });

  it('does not count a refused forbidden action as taken (§7.3 "no forbidden actions taken")', () => {
    expect(types(compiled(), trace({ type: 'deny', name: 'delete_file', category: 'forbidden' }))).toEqual([]);
    expect(types(compiled(), trace({ type: 'recommend', name: 'delete_file', category: 'forbidden' }))).toEqual(['forbidden_action']);
  });
});

describe('escalation triggers and the value limit', () => {
  const card = compiled({
    escalation_triggers: [
      { condition: 'amount > 100', action: 'escalate', reason: 'Spending limit' },
      { condition: 'path matches "^/etc/"', action: 'deny', reason: 'System paths' },
      { condition: 'region == "eu"', action: 'log', reason: 'Record EU traffic' },
    ],
  });

  it('needs escalation for a matched escalate trigger; a timed-out escalation was still attempted', () => {
    expect(types(card, trace({ parameters: { amount: 150 } }))).toEqual(['missed_escalation']);
    expect(types(card, trace({ parameters: { amount: 150 } }, { escalation: { evaluated: true, required: true, reason: 'limit', escalation_status: 'timeout' } }))).toEqual([]);
    expect(types(card, trace({ parameters: { amount: 150 } }, { escalation: null }))).toEqual(['missed_escalation']);
    expect(types(card, trace({ type: 'escalate', parameters: { amount: 150 } }))).toEqual([]);
    expect(types(card, trace({ parameters: { amount: 50 } }))).toEqual([]);
  });

  it('needs a refusal for a matched deny trigger', () => {
    const result = verifyTrace(trace({ name: 'read_file', parameters: { path: '/etc/shadow' } }, { escalation: { evaluated: true, required: true, reason: 'asked' } }), card, { now: NOW });
    expect(result.violations.map((v) => [v.type, v.trace_field])).toEqual([['forbidden_action', 'action.type']]);
    expect(result.violations[0]!.description).toMatch(/requires action 'read_file' to be denied \(System paths\)/);
    expect(types(card, trace({ type: 'deny', name: 'read_file', parameters: { path: '/etc/shadow' } }))).toEqual([]);
  });

  it('records a matched log trigger without a violation', () => {
    const result = verifyTrace(trace({}, { context: { metadata: { region: 'eu' } } }), card, { now: NOW });
    expect(result.violations).toEqual([]);
    expect(result.verification_metadata.triggers.find((t) => t.action === 'log')).toEqual({ source: 'autonomy_envelope.escalation_triggers[2]', condition: 'region == "eu"', action: 'log', matched: true, satisfied: true });
  });

  it('enforces max_autonomous_value, once per missing escalation, in its currency', () => {
    const limited = compiled({ max_autonomous_value: { amount: 50, currency: 'USD' } });
    const over = verifyTrace(trace({ parameters: { amount: '75.5' } }), limited, { now: NOW });
    expect(over.violations.map((v) => [v.type, v.trace_field])).toEqual([['missed_escalation', 'action.parameters.amount']]);
    expect(over.violations[0]!.description).toBe('Amount 75.5 USD exceeds max_autonomous_value 50 USD but was not escalated');
    expect(types(limited, trace({ parameters: { amount: 50 } }))).toEqual([]);
    expect(types(limited, trace({ parameters: { amount: 75 } }, { escalation: { evaluated: true, required: true, reason: 'limit' } }))).toEqual([]);
    const both = compiled({ max_autonomous_value: { amount: 50 }, escalation_triggers: [{ condition: 'amount > 50', action: 'escalate', reason: 'limit' }] });
    expect(types(both, trace({ parameters: { amount: 199.99 } }))).toEqual(['missed_escalation']);
    const euros = verifyTrace(trace({ parameters: { amount: 75, currency: 'EUR' } }), limited, { now: NOW });
    expect(euros.violations).toEqual([]);
    expect(euros.warnings.map((w) => w.type)).toContain('currency_mismatch');
  });
});
