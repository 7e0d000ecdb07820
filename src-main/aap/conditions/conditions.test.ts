import RE2 from 're2';
import { describe, expect, it } from 'vitest';
import { ApTrace } from '../../../src-shared/aap/trace.js';
import { compileCondition, CONDITION_LIMITS, conditionProblem, traceScope, type FieldResolver } from './index.js';

/** Resolves dotted paths in a plain object, as a trace scope would. */
function fields(values: Record<string, unknown>): FieldResolver {
  return (path) => {
    let node: unknown = values;
    for (const segment of path) {
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
      node = (node as Record<string, unknown>)[segment];
    }
    return node;
  };
}

function holds(condition: string, values: Record<string, unknown>): boolean {
  const compiled = compileCondition(condition);
  if (!compiled.ok) throw new Error(`${condition}: ${compiled.error}`);
  return compiled.condition.evaluate(fields(values));
}

function refusal(condition: string): string {
  const compiled = compileCondition(condition);
  if (compiled.ok) throw new Error(`${condition} compiled`);
  return compiled.error;
}

describe('§4.6 comparisons', () => {
  it('compares numbers, including negative, decimal and exponent literals', () => {
    expect(holds('purchase_value > 100', { purchase_value: 100.01 })).toBe(true);
    expect(holds('purchase_value > 100', { purchase_value: 100 })).toBe(false);
    expect(holds('purchase_value >= 100', { purchase_value: 100 })).toBe(true);
    expect(holds('balance < -5', { balance: -5.5 })).toBe(true);
    expect(holds('balance <= -5.5', { balance: -5.5 })).toBe(true);
    expect(holds('ratio == 0.25', { ratio: 0.25 })).toBe(true);
    expect(holds('size > 1e3', { size: 1001 })).toBe(true);
  });

  it('compares strings for equality and order, with either quote', () => {
    expect(holds('action_type == "purchase"', { action_type: 'purchase' })).toBe(true);
    expect(holds("action_type == 'purchase'", { action_type: 'purchase' })).toBe(true);
    expect(holds('action_type != "purchase"', { action_type: 'search' })).toBe(true);
    expect(holds('name > "m"', { name: 'zeta' })).toBe(true);
    expect(holds('name < "m"', { name: 'zeta' })).toBe(false);
    expect(holds('note == "say \\"hi\\"\\n"', { note: 'say "hi"\n' })).toBe(true);
  });

  it('compares booleans and null, and checks truthiness like §4.6 (Python) does', () => {
    expect(holds('shares_personal_data == true', { shares_personal_data: true })).toBe(true);
    expect(holds('shares_personal_data == true', { shares_personal_data: 'true' })).toBe(false);
    expect(holds('shares_personal_data == false', { shares_personal_data: false })).toBe(true);
    expect(holds('shares_personal_data', { shares_personal_data: true })).toBe(true);
    for (const falsy of [false, 0, '', [], {}, null]) expect(holds('shares_personal_data', { shares_personal_data: falsy })).toBe(false);
    expect(holds('shares_personal_data', {})).toBe(false);
    expect(holds('reviewer == null', {})).toBe(true);
    expect(holds('reviewer != null', { reviewer: 'ann' })).toBe(true);
  });

  it('reads dotted paths, and never a prototype member', () => {
    expect(holds('order.total > 50', { order: { total: 75 } })).toBe(true);
    expect(holds('order.customer.tier == "gold"', { order: { customer: { tier: 'gold' } } })).toBe(true);
    expect(holds('order.total > 50', { order: 75 })).toBe(false);
    expect(holds('order.constructor', { order: {} })).toBe(false);
    expect(holds('order.__proto__', { order: {} })).toBe(false);
  });

  it('does not let a quoted amount slip past a numeric limit, and does not coerce anything else', () => {
    expect(holds('amount > 100', { amount: '149.99' })).toBe(true);
    expect(holds('amount > 100', { amount: '149.99 USD' })).toBe(false);
    expect(holds('amount > 100', { amount: true })).toBe(false);
    expect(holds('amount > 100', {})).toBe(false);
    expect(holds('count == 3', { count: '3' })).toBe(true);
    expect(holds('label == "3"', { label: 3 })).toBe(false);
  });

  it('joins with and / or / not and parentheses, and has contains, matches and in', () => {
    expect(holds('a == "x" and b > 1', { a: 'x', b: 2 })).toBe(true);
    expect(holds('a == "x" or b > 1', { a: 'y', b: 2 })).toBe(true);
    expect(holds('a == "x" or b > 1 and c', { a: 'x', b: 0 })).toBe(true);
    expect(holds('(a == "x" or b > 1) and c', { a: 'x', b: 0 })).toBe(false);
    expect(holds('not a == "x"', { a: 'y' })).toBe(true);
    expect(holds('tags contains "urgent"', { tags: ['low', 'urgent'] })).toBe(true);
    expect(holds('contains(tags, "urgent")', { tags: 'not urgent at all' })).toBe(true);
    expect(holds('contains(tags, 3)', { tags: [1, 2] })).toBe(false);
    expect(holds('path matches "^/etc/"', { path: '/etc/passwd' })).toBe(true);
    expect(holds('matches(path, "^/etc/")', { path: '/home/etc/x' })).toBe(false);
    expect(holds("tool in ['write_file', 'append_file']", { tool: 'append_file' })).toBe(true);
    expect(holds('tool not in ["read_file"]', { tool: 'write_file' })).toBe(true);
  });

  it('reports the fields a condition reads', () => {
    const compiled = compileCondition('order.total > 5 and (flag or matches(name, "x"))');
    expect(compiled.ok && compiled.condition.fields).toEqual(['order.total', 'flag', 'name']);
  });
});

describe('conditions from the attacker side', () => {
  it('never fires a half-parsable condition on the half it understood', () => {
    expect(holds('a == "x" and b > 1000', { a: 'x', b: 5 })).toBe(false);
    expect(holds('b > 1000 and a == "x"', { a: 'x', b: 5 })).toBe(false);
    for (const broken of ['a == "x" and', 'a == "x" garbage', 'a == "x" b > 1000', 'a == "x" && b > 1000', 'b > 1000 ; a == "x"', 'a == "x" and (b > 1000']) {
      expect(conditionProblem(broken), broken).not.toBeNull();
    }
  });

  it('refuses what the grammar does not have, with the column and a hint', () => {
    expect(refusal('action_type == purchase')).toMatch(/column 16: .*quoted string.*"purchase"/);
    expect(refusal('amount = 100')).toMatch(/compare with ==/);
    expect(refusal("path.startswith('/etc/')")).toMatch(/function the language does not have/);
    expect(refusal('100 < amount')).toMatch(/compares a field/);
    expect(refusal('flag == true and')).toMatch(/end of the condition/);
    expect(refusal('amount > true')).toMatch(/compares numbers or strings/);
    expect(refusal('note == "open')).toMatch(/never closed/);
    expect(refusal('note == "\\q"')).toMatch(/unknown escape/);
    expect(refusal('amount > 1.2.3')).toMatch(/malformed number/);
    expect(refusal('a - b')).toMatch(/must start a number/);
    expect(refusal('and == 1')).toMatch(/reserved word/);
    expect(refusal('x in []')).toMatch(/expected a value/);
    expect(refusal('   ')).toMatch(/empty/);
    expect(refusal('a == "x" § b')).toMatch(/unexpected character "§"/);
  });

  it('bounds nesting depth and reports it instead of recursing', () => {
    const ok = `${'('.repeat(CONDITION_LIMITS.maxDepth)}a${')'.repeat(CONDITION_LIMITS.maxDepth)}`;
    expect(holds(ok, { a: 1 })).toBe(true);
    expect(refusal(`${'('.repeat(CONDITION_LIMITS.maxDepth + 1)}a${')'.repeat(CONDITION_LIMITS.maxDepth + 1)}`)).toMatch(/nested more than 32 levels/);
    expect(refusal(`${'not '.repeat(40)}a`)).toMatch(/nested more than 32 levels/);
    expect(refusal(`${'('.repeat(2000)}a${')'.repeat(2000)}`)).toMatch(/nested more than 32 levels/);
  });

  it('refuses huge inputs before reading them, and bounds lists and patterns', () => {
    expect(refusal(`a == "${'x'.repeat(1_000_000)}"`)).toMatch(/1000007 characters long; the maximum is 4096/);
    expect(refusal(`${Array.from({ length: 800 }, (_, i) => `f${i}`).join(' or ')}`)).toMatch(/maximum is 4096/);
    expect(refusal(`x in [${Array.from({ length: 300 }, (_, i) => i).join(',')}]`)).toMatch(/at most 256 values/);
    expect(refusal(`x matches "${'a'.repeat(1100)}"`)).toMatch(/maximum is 1024/);
    const long = Array.from({ length: 250 }, (_, i) => `f${i} == ${i}`).join(' or ');
    expect(long.length).toBeLessThan(CONDITION_LIMITS.maxLength);
    expect(holds(long, { f249: 249 })).toBe(true);
  });

  // A backtracking engine needs exponential time on these inputs, so the test's own timeout
  // (30 s) is the bound; RE2 answers in linear time. No timed assertion (DESIGN §6).
  it('runs ReDoS-shaped patterns with RE2, so they finish, and refuses what RE2 cannot compile', () => {
    const victim = `${'a'.repeat(100_000)}!`;
    const compiled = compileCondition('name matches "(a+)+$"');
    expect(compiled.ok && compiled.condition.ast.kind === 'matches' && compiled.condition.ast.pattern instanceof RE2).toBe(true);
    expect(holds('name matches "(a+)+$"', { name: victim })).toBe(false);
    expect(holds('name matches "(a|a)*b"', { name: victim })).toBe(false);
    expect(holds('matches(name, "(a*)*$")', { name: victim })).toBe(true);
    expect(refusal('name matches "(?=a)"')).toMatch(/not a valid RE2 expression/);
    expect(refusal('name matches "(a)\\\\1"')).toMatch(/not a valid RE2 expression/);
    expect(refusal('name matches amount')).toMatch(/pattern in quotes/);
  });

  it('does not throw on values of any type', () => {
    const compiled = compileCondition('a > 1 or a contains "x" or a matches "x" or a in [1, "x", null] or a.b.c');
    expect(compiled.ok).toBe(true);
    for (const value of [null, undefined, 0, 'x', [], [1], {}, { b: { c: true } }, true, 1e308]) {
      expect(() => compiled.ok && compiled.condition.evaluate(fields({ a: value }))).not.toThrow();
    }
  });
});

describe('trace fields a condition names', () => {
  const trace = ApTrace.parse({
    trace_id: 'tr-1',
    agent_id: 'agent',
    card_id: 'ac-1',
    timestamp: '2026-01-31T12:00:00Z',
    action: { type: 'execute', name: 'purchase', category: 'escalation_trigger', parameters: { amount: 149.99, action_type: 'spoofed', order: { total: 12 } } },
    decision: { alternatives_considered: [{ option_id: 'a', description: 'a' }], selected: 'a', selection_reasoning: 'r', values_applied: ['principal_benefit'], confidence: 0.4 },
    context: { session_id: 's-1', metadata: { region: 'eu' }, environment: { client: 'web' } },
  });
  const scope = traceScope(trace);
  const at = (condition: string) => {
    const compiled = compileCondition(condition);
    return compiled.ok && compiled.condition.evaluate(scope);
  };

  it('finds action parameters, context members and the trace itself', () => {
    expect(at('amount > 100')).toBe(true);
    expect(at('order.total == 12')).toBe(true);
    expect(at('region == "eu" and client == "web" and session_id == "s-1"')).toBe(true);
    expect(at('action.name == "purchase" and decision.confidence < 0.6')).toBe(true);
    expect(at('confidence < 0.6 and action_name == "purchase" and values_applied contains "principal_benefit"')).toBe(true);
  });

  it('gives the trace its own facts before parameters an agent could use to shadow them', () => {
    expect(at('action_type == "execute"')).toBe(true);
    expect(at('action_type == "spoofed"')).toBe(false);
  });
});
