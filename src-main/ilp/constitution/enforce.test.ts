import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentResponse, enforceConstitution, type InvocationContext } from './enforce.js';
import { checkConstitutionalHeader, type ConstitutionalHeader } from './header.js';

/*
 * The enforcer against the reference implementation's observed behaviour
 * (../shared/conformance/ilp/reference-behavior/constitution-cases.json): each case gives the
 * status we answer and, where it differs from the reference, why (docs/conformance.md "ILP
 * constitution"). Then cases of our own for what the reference never checks.
 */

const CASES = fileURLToPath(new URL('../../../../shared/conformance/ilp/reference-behavior/constitution-cases.json', import.meta.url));
interface Case {
  name: string;
  response: unknown;
  context: { depth: number; invocation_count: number; cost_so_far: number; previous_agents: string[] };
  result: { passed: boolean; violations: { principle_id: string }[]; warnings: { principle_id: string }[] };
}
const cases = (JSON.parse(readFileSync(CASES, 'utf8')) as { cases: Case[] }).cases;

function header(fields: Record<string, unknown> = {}): ConstitutionalHeader {
  const checked = checkConstitutionalHeader({ domain: 'finance', depth: 0, budget_usd: 0, ...fields });
  if (!checked.ok) throw new Error(checked.message);
  return checked.header;
}

const REASONING = 'Budgets behave like feedback loops: spending above income is corrected next period.';
const answer = (fields: Partial<AgentResponse> = {}): AgentResponse => ({ answer: 'Keep a reserve.', concepts: ['reserve'], confidence: 0.9, reasoning: REASONING, ...fields });

/** Our status and principles for each reference case; `why` where we differ from the reference. */
const OURS: Record<string, { status: number; principles: string[]; why?: string }> = {
  'baseline passes': { status: 200, principles: [] },
  'confidence 0.69 without admission phrase': { status: 403, principles: ['epistemic_honesty'], why: '§8.4 shows severity error (403); the reference says warning' },
  'confidence exactly 0.7 (threshold is strict <)': { status: 200, principles: [] },
  "low confidence with exact phrase I'm not certain": { status: 200, principles: [] },
  'admission phrases are case-sensitive': { status: 200, principles: [], why: 'an admission counts whatever its case' },
  'hallucination marker without sources': { status: 207, principles: ['epistemic_honesty'] },
  'hallucination marker with sources array (even empty)': { status: 207, principles: ['epistemic_honesty'], why: 'an empty list of sources cites nothing' },
  'depth 5 >= max_depth 5': { status: 429, principles: ['recursion_budget'] },
  'depth 4, invocations 9, cost 0.99 (all under limits)': { status: 200, principles: [] },
  'invocation_count 10': { status: 429, principles: ['recursion_budget'] },
  'cost_so_far 1.0': { status: 429, principles: ['recursion_budget'] },
  'depth and cost both exceeded: only first reported': { status: 429, principles: ['recursion_budget', 'recursion_budget'], why: 'every exceeded limit is reported' },
  'previous_agents [a,a]': { status: 200, principles: [], why: '§8.4 and §13.4: a run longer than max_same_agent_consecutive (2) is the loop' },
  'previous_agents [a,b,a] (non-adjacent repeat within last 3)': { status: 200, principles: [], why: 'a repeat that is not consecutive is not the §8.4 loop; loops by context hash come with composition' },
  'previous_agents [a,b,c]': { status: 200, principles: [] },
  'previous_agents [a,b,c,a] (cycle, length>=4)': { status: 200, principles: [], why: 'a meta-agent revisiting a specialist is no loop by name; by context hash it is (with composition)' },
  'RFC 13.4 chain meta,financial x3': { status: 409, principles: ['loop_prevention'] },
  'reasoning missing': { status: 403, principles: ['reasoning_transparency'], why: '§9.1 item 4 is a MUST and the header requires a reasoning trace by default' },
  'reasoning 49 chars': { status: 403, principles: ['reasoning_transparency'], why: 'as above' },
  'harmful marker hack inside hackathon': { status: 200, principles: [], why: 'words are matched whole' },
  'harmful marker with safety-context word anywhere': { status: 403, principles: ['safety'], why: 'the defending word must stand in the same clause' },
  'low confidence AND hallucination marker: only first epistemic issue reported': { status: 403, principles: ['epistemic_honesty', 'epistemic_honesty'], why: 'both issues are reported' },
  'RFC 13.1 response body (reasoning 43 chars)': { status: 403, principles: ['reasoning_transparency'], why: 'the example contradicts §9.1 item 4; the normative text wins' },
  'RFC 13.2 response body': { status: 200, principles: [] },
  'RFC 13.3 response body (confidence 0.65, financial)': { status: 200, principles: [], why: 'its reasoning admits "low confidence"; the RFC\'s 207 comes from a financial principle, a custom principle (§9.3) of that agent' },
  'RFC 5.4 response body': { status: 200, principles: [] },
};

describe('the reference behaviour cases', () => {
  it('are all here', () => {
    expect(cases.map((c) => c.name).sort()).toEqual(Object.keys(OURS).sort());
  });

  for (const c of cases) {
    it(c.name, () => {
      const context: InvocationContext = { depth: c.context.depth, invocations: c.context.invocation_count, cost_usd: c.context.cost_so_far, previous_agents: c.context.previous_agents };
      const decision = enforceConstitution(header(), AgentResponse.parse(c.response), context);
      const ours = OURS[c.name]!;
      expect({ status: decision.status, principles: [...decision.violations, ...decision.warnings].map((f) => f.principle) }).toEqual({ status: ours.status, principles: ours.principles });
      const reference = [...c.result.violations, ...c.result.warnings].map((v) => v.principle_id);
      if (ours.why === undefined) expect([...new Set(ours.principles)], 'differs from the reference without a reason').toEqual([...new Set(reference)]);
    });
  }
});

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
