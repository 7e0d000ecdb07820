import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../canonical.js';
import { ALLOWED_MUTATIONS, Gate, GateExpectation, GateResult, isAllowedMutation, laneOf } from './gates.js';

const problems = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }): string[] =>
  result.success ? [] : result.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('Gate', () => {
  it('fills the spec defaults and writes every optional field as null', () => {
    const gate = Gate.parse({ name: 'g', on: 'every_user_message' });
    expect(gate).toEqual({
      name: 'g',
      on: 'every_user_message',
      after_step: null,
      provider: 'predicate',
      type: 'string_match',
      check: null,
      config: {},
      extract: null,
      auto_approve: null,
      require_approval: null,
      block: null,
      allowed_values: null,
      approval_values: null,
      on_block: 'report',
      check_command: null,
      check_expect: null,
      promote_to_policy: false,
    });
  });

  it('parses an omitted field and an explicit null to the same canonical bytes (stable plan hash)', () => {
    const a = Gate.parse({ name: 'g', on: 'on_tool_call' });
    const b = Gate.parse({ name: 'g', on: 'on_tool_call', extract: null, check: null, block: null });
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });

  it('parses the gates of the spec examples (§13.2, §13.3)', () => {
    const position = Gate.parse({
      name: 'position_size',
      on: 'after_step',
      after_step: 2,
      provider: 'predicate',
      type: 'numeric_range',
      extract: 'position_usd',
      auto_approve: { min: 0.0, max: 25.0 },
      require_approval: { min: 25.0, max: 100.0 },
      block: { outside: [0.0, 100.0] },
      on_block: 'abort_trade',
    });
    expect(position.block).toEqual({ outside: [0, 100] });
    const identity = Gate.parse({
      name: 'identity_verified',
      on: 'every_user_message',
      provider: 'script',
      type: 'custom_check',
      check: 'verify_customer',
      config: { script: 'guards/verify_customer.py', args_from_env: ['CUSTOMER_NAME', 'CUSTOMER_DOB'] },
      check_expect: { equals: 'verified' },
      on_block: 'retry_verification',
    });
    expect(identity.check_expect?.equals).toBe('verified');
    expect(Gate.parse({ name: 'pii_out', on: 'every_agent_response', provider: 'guardrails_ai', check: 'pii', config: { entities: ['CREDIT_CARD', 'SSN'] } }).provider).toBe('guardrails_ai');
  });

  it('refuses unknown fields, naming them', () => {
    expect(problems(Gate.safeParse({ name: 'g', on: 'every_user_message', extrct: 'x' }))[0]).toMatch(/extrct/);
  });

  it('ties after_step to the after_step trigger both ways', () => {
    expect(problems(Gate.safeParse({ name: 'g', on: 'after_step' }))).toEqual(['after_step: a gate with on: after_step needs after_step: <step number>']);
    expect(problems(Gate.safeParse({ name: 'g', on: 'on_tool_call', after_step: 1 }))[0]).toMatch(/^after_step: after_step only applies/);
  });

  it('refuses inverted ranges and non-finite bounds', () => {
    expect(problems(Gate.safeParse({ name: 'g', on: 'on_tool_call', auto_approve: { min: 5, max: 1 } }))).toEqual(['auto_approve.min: min must not be greater than max']);
    expect(problems(Gate.safeParse({ name: 'g', on: 'on_tool_call', block: { outside: [10, 0] } }))).toEqual(['block.outside: outside must be [low, high] with low <= high']);
    expect(Gate.safeParse({ name: 'g', on: 'on_tool_call', auto_approve: { min: 0, max: Infinity } }).success).toBe(false);
  });

  it('refuses gate names that are not plain identifiers and unknown enum values', () => {
    expect(Gate.safeParse({ name: 'bad name', on: 'every_user_message' }).success).toBe(false);
    expect(Gate.safeParse({ name: '../x', on: 'every_user_message' }).success).toBe(false);
    expect(problems(Gate.safeParse({ name: 'g', on: 'every_message' }))[0]).toMatch(/^on:/);
    expect(problems(Gate.safeParse({ name: 'g', on: 'on_tool_call', provider: 'python' }))[0]).toMatch(/^provider:/);
  });

  it('accepts dotted extract paths but nothing that could walk a prototype or a file path', () => {
    expect(Gate.parse({ name: 'g', on: 'on_tool_call', extract: 'tool_args.position_usd' }).extract).toBe('tool_args.position_usd');
    expect(Gate.safeParse({ name: 'g', on: 'on_tool_call', extract: 'a..b' }).success).toBe(false);
    expect(Gate.safeParse({ name: 'g', on: 'on_tool_call', extract: 'a[0]' }).success).toBe(false);
  });
});

describe('GateExpectation', () => {
  it('requires exactly one predicate', () => {
    expect(GateExpectation.parse({ equals: 'verified' }).equals).toBe('verified');
    expect(problems(GateExpectation.safeParse({}))[0]).toMatch(/exactly one predicate is required/);
    expect(problems(GateExpectation.safeParse({ equals: 'a', contains: 'b' }))[0]).toMatch(/2 given \(equals, contains\)/);
    expect(problems(GateExpectation.safeParse({ not_empty: false }))[0]).toMatch(/^not_empty: not_empty: false checks nothing/);
    expect(GateExpectation.safeParse({ file_exists: '../etc/passwd' }).success).toBe(false);
  });
});

describe('GateResult', () => {
  it('defaults score, flags and modified_context', () => {
    expect(GateResult.parse({ gate_name: 'g', lane: 'policy', action: 'continue', reason: 'ok' })).toEqual({
      gate_name: 'g',
      lane: 'policy',
      action: 'continue',
      reason: 'ok',
      value: null,
      score: null,
      flags: [],
      modified_context: null,
    });
  });

  it('keeps the score in [0, 1] and actions to the three of the spec', () => {
    expect(GateResult.safeParse({ gate_name: 'g', lane: 'quality', action: 'continue', reason: '', score: 1.5 }).success).toBe(false);
    expect(GateResult.safeParse({ gate_name: 'g', lane: 'policy', action: 'allow', reason: '' }).success).toBe(false);
  });
});

describe('lanes and the mutation allowlist', () => {
  it('derives the lane from the provider; only llm can be promoted', () => {
    expect(laneOf({ provider: 'llm', promote_to_policy: false })).toBe('quality');
    expect(laneOf({ provider: 'llm', promote_to_policy: true })).toBe('policy');
    expect(laneOf({ provider: 'script', promote_to_policy: false })).toBe('policy');
    expect(laneOf({ provider: 'predicate', promote_to_policy: true })).toBe('policy');
  });

  it('allows exactly response, message and tool_args', () => {
    expect([...ALLOWED_MUTATIONS]).toEqual(['response', 'message', 'tool_args']);
    expect(Object.isFrozen(ALLOWED_MUTATIONS)).toBe(true);
    expect(isAllowedMutation('tool_args')).toBe(true);
    expect(isAllowedMutation('approval_token')).toBe(false);
    expect(isAllowedMutation('__proto__')).toBe(false);
  });
});
