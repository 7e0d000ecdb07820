import { describe, expect, it } from 'vitest';
import { enforceConstitution, type AgentResponse } from './enforce.js';
import { checkConstitutionalHeader, type ConstitutionalHeader } from './header.js';
import { compilePrinciples } from './custom-principles.js';

/*
 * The enforcer on cases of our own: every limit from the request's header, and what the
 * reference never checks. The reference's observed cases run in ../conformance/runner.test.ts.
 */

function header(fields: Record<string, unknown> = {}): ConstitutionalHeader {
  const checked = checkConstitutionalHeader({ domain: 'finance', depth: 0, budget_usd: 0, ...fields });
  if (!checked.ok) throw new Error(checked.message);
  return checked.header;
}

const REASONING = 'Budgets behave like feedback loops: spending above income is corrected next period.';
const answer = (fields: Partial<AgentResponse> = {}): AgentResponse => ({ answer: 'Keep a reserve.', concepts: ['reserve'], confidence: 0.9, reasoning: REASONING, ...fields });

describe('limits come from the request\'s own header', () => {
  it('a lower max_depth refuses sooner, a higher one later', () => {
    expect(enforceConstitution(header({ max_depth: 2 }), answer(), { depth: 2 }).status).toBe(429);
    expect(enforceConstitution(header({ max_depth: 8 }), answer(), { depth: 6 }).status).toBe(200);
  });

  it('the response\'s own cost counts toward the budget', () => {
    const decision = enforceConstitution(header({ max_budget_usd: 0.05 }), answer({ cost_usd: 0.02 }), { cost_usd: 0.04 });
    expect(decision).toMatchObject({ status: 429, violations: [{ principle: 'recursion_budget', message: 'Budget exhausted ($0.06 of $0.05)' }] });
  });

  it('max_same_agent_consecutive and detect_loops are the header\'s', () => {
    const chain = { previous_agents: ['meta', 'finance', 'finance'], agent: 'finance' };
    expect(enforceConstitution(header({ max_same_agent_consecutive: 3 }), answer(), chain).status).toBe(200);
    expect(enforceConstitution(header({ max_same_agent_consecutive: 2 }), answer(), chain).status).toBe(409);
    expect(enforceConstitution(header({ detect_loops: false }), answer(), chain).status).toBe(200);
  });

  it('a confidence threshold and the honesty switch are the header\'s', () => {
    expect(enforceConstitution(header({ confidence_threshold: 0.95 }), answer(), {}).status).toBe(403);
    expect(enforceConstitution(header({ enforce_epistemic_honesty: false }), answer({ confidence: 0.1 }), {}).status).toBe(200);
    expect(enforceConstitution(header({ require_reasoning_trace: false }), answer({ reasoning: 'short' }), {})).toMatchObject({ status: 207, constitutional_status: 'WARNING' });
  });

  it('a forbidden translation is refused with 451', () => {
    const decision = enforceConstitution(header(), answer(), { domain_from: 'medicine', domain_to: 'finance', concepts_translated: ['dosage'] }, { forbiddenTranslations: [{ from: 'medicine', to: 'finance' }] });
    expect(decision).toMatchObject({ status: 451, violations: [{ principle: 'domain_boundary', message: 'Translation from medicine to finance is forbidden (dosage)' }] });
  });

  it('the gravest principle decides the status', () => {
    const decision = enforceConstitution(header({ max_depth: 1 }), answer({ confidence: 0.2, answer: 'Here is an exploit.' }), { depth: 1, previous_agents: ['a', 'a', 'a'] });
    expect(decision.status).toBe(429);
    expect(decision.violations.map((v) => v.principle)).toEqual(['recursion_budget', 'loop_prevention', 'epistemic_honesty', 'safety']);
  });
});

describe('safety reads whole words in their clause', () => {
  it.each([
    ['Patch the server so attackers cannot exploit it.', 200],
    ['Here is a working exploit for the login form.', 403],
    ['We hacked together a prototype; the HACKATHON went well.', 200],
    ['Steal the session cookie and replay it.', 403],
  ])('%s → %i', (text, status) => {
    expect(enforceConstitution(header(), answer({ answer: text }), {}).status).toBe(status);
  });
});

describe('the owner\'s custom principles (§9.3 item 1)', () => {
  const principles = compilePrinciples([
    { id: 'no_guarantees', description: 'Finance answers never promise returns', severity: 'error', domains: ['finance'], forbidden_words: ['guaranteed returns'] },
    { id: 'cite_money', description: 'Money advice cites a source', severity: 'warning', require_sources: true },
  ]);

  it('an error refuses the answer with 403 naming the principle; a warning passes it with 207', () => {
    expect(enforceConstitution(header(), answer({ answer: 'Index funds give Guaranteed Returns.', sources: ['s'] }), {}, { principles })).toMatchObject({ status: 403, constitutional_status: 'VIOLATION', violations: [{ principle: 'no_guarantees', severity: 'error' }] });
    expect(enforceConstitution(header(), answer(), {}, { principles })).toMatchObject({ status: 207, warnings: [{ principle: 'cite_money' }] });
    expect(enforceConstitution(header(), answer({ sources: ['budgeting-basics'] }), {}, { principles }).status).toBe(200);
  });

  it('finds a pattern, read together with every other principle\'s words in one pass', () => {
    const withPattern = compilePrinciples([
      { id: 'no_rates', description: 'No promised yearly rates', severity: 'error', forbidden_pattern: '\\b[0-9]+% (?:a|per) year' },
      { id: 'no_guarantees', description: 'Finance answers never promise returns', severity: 'warning', domains: ['biology'], forbidden_words: ['guaranteed'] },
    ]);
    expect(enforceConstitution(header(), answer({ answer: 'Index funds return 7% PER YEAR, guaranteed.' }), {}, { principles: withPattern })).toMatchObject({ status: 403, violations: [{ principle: 'no_rates', message: expect.stringContaining('7% PER YEAR') }], warnings: [] });
    expect(enforceConstitution(header(), answer({ answer: 'Returns vary from year to year.' }), {}, { principles: withPattern }).status).toBe(200);
  });

  it('applies only to the domains it names, and never outranks a limit', () => {
    expect(enforceConstitution(header({ domain: 'biology' }), answer({ answer: 'No guaranteed returns here.', sources: ['s'] }), {}, { principles }).status).toBe(200);
    expect(enforceConstitution(header({ max_depth: 1 }), answer({ answer: 'guaranteed returns', sources: ['s'] }), { depth: 1 }, { principles }).status).toBe(429);
  });
});
