/**
 * The reference implementation's observed constitution cases
 * (conformance/ilp/reference-behavior/constitution-cases.json) where we answer otherwise because
 * the RFC's normative text says so, or because the reference misses what it should see: our status
 * and principles (in order), and why. Each counts as passed only while we answer exactly this;
 * docs/conformance.md "ILP constitution" explains each rule.
 */
export interface ConstitutionDeviation {
  status: number;
  principles: string[];
  why: string;
}

export const CONSTITUTION_DEVIATIONS: ReadonlyMap<string, ConstitutionDeviation> = new Map([
  ['confidence 0.69 without admission phrase', { status: 403, principles: ['epistemic_honesty'], why: '§8.4 gives low confidence without an admission severity error (403); the reference says warning' }],
  ['admission phrases are case-sensitive', { status: 200, principles: [], why: 'an admission of uncertainty counts whatever its case' }],
  ['hallucination marker with sources array (even empty)', { status: 207, principles: ['epistemic_honesty'], why: 'an empty list of sources cites nothing' }],
  ['depth and cost both exceeded: only first reported', { status: 429, principles: ['recursion_budget', 'recursion_budget'], why: 'every exceeded limit is reported' }],
  ['previous_agents [a,a]', { status: 200, principles: [], why: '§8.4 and §13.4: the loop is a run longer than max_same_agent_consecutive (2)' }],
  ['previous_agents [a,b,a] (non-adjacent repeat within last 3)', { status: 200, principles: [], why: 'a repeat that is not consecutive is not the §8.4 loop' }],
  ['previous_agents [a,b,c,a] (cycle, length>=4)', { status: 200, principles: [], why: 'a meta-agent revisiting a specialist is no loop by name (§9.1 item 3 compares context hashes)' }],
  ['reasoning missing', { status: 403, principles: ['reasoning_transparency'], why: '§9.1 item 4 is a MUST and the header requires a reasoning trace by default' }],
  ['reasoning 49 chars', { status: 403, principles: ['reasoning_transparency'], why: '§9.1 item 4: at least 50 characters' }],
  ['harmful marker hack inside hackathon', { status: 200, principles: [], why: 'words of harm are matched whole' }],
  ['harmful marker with safety-context word anywhere', { status: 403, principles: ['safety'], why: 'the defending word must stand in the clause of the word of harm' }],
  ['low confidence AND hallucination marker: only first epistemic issue reported', { status: 403, principles: ['epistemic_honesty', 'epistemic_honesty'], why: 'both issues are reported' }],
  ['RFC 13.1 response body (reasoning 43 chars)', { status: 403, principles: ['reasoning_transparency'], why: 'the example contradicts §9.1 item 4; the normative text wins' }],
  ['RFC 13.3 response body (confidence 0.65, financial)', { status: 200, principles: [], why: 'its reasoning admits "low confidence"; the RFC\'s 207 comes from a financial principle, a custom principle (§9.3) of that agent' }],
]);

/** RFC example messages that contradict the normative text: refused naming `field`, and valid once corrected. */
export const MESSAGE_DEVIATIONS: ReadonlyMap<string, { field: string; why: string }> = new Map([
  ['5.3-think-request.ilp', { field: 'Content-Length', why: 'declares 156 bytes for a body of 151; §5.1 declares the body\'s length' }],
  ['5.4-think-response-200.ilp', { field: 'Content-Length', why: 'declares 487 bytes for a body of 346; §5.1 declares the body\'s length' }],
]);
