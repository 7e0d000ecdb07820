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

/**
 * The reference navigator's observed answers (conformance/ilp/reference-behavior/navigator-cases.json)
 * where ours differ, by case (`FOLDER: call argument`): our answer in the reference's shape (for a
 * loaded slice, only the fields that differ), the RFC section the behaviour serves, and why. Each
 * counts as passed only while we answer exactly this; docs/conformance.md "ILP navigator".
 */
export interface NavigatorDeviation {
  answer: unknown;
  section: string;
  why: string;
}

const hit = (slice_id: string, relevance_score: number, ...matched_concepts: string[]) => ({ slice_id, relevance_score, matched_concepts });
const SEARCH = '§4.2 step 4';
const ONE_HIT = 'one hit per slice, with every concept of it that matched (the reference lists a slice once per concept)';
const TIES = 'equal scores are ranked by FTS5 bm25 over title and knowledge, then load order (the reference keeps the order it first saw each concept)';
const TEXT = 'slices whose title or knowledge holds the query follow at 0.4, after every concept match (the reference matches concepts only)';
const AS_WRITTEN = 'matched_concepts names the concept as the slice writes it (the reference echoes the query)';
const WITHIN = 'a query that holds a concept whole matches it at 0.7: "negative_feedback" holds the concept feedback (the reference only matches a query a concept contains)';
const RELATED_ONCE = 'related_slices names each linked slice once (the reference lists each twice)';
const BY_ID = 'a slice is loaded by its id through the index; the reference looks for a file whose name contains the id, so test.slice.yml (test-yml) and isolated.slice.yaml (isolated-slice) cannot be loaded';
const NO_CACHE = 'no cache_size: every slice is held from load, so there is no cache of loaded slices to count (§9.2 item 5\'s caching is the model\'s prompt cache)';
const unlinked = (knowledge_chars: number) => ({ related_slices: [], connection_graph: {}, knowledge_chars, examples: 0, principles: 0, formulas: [], references: 0 });

export const NAVIGATOR_DEVIATIONS: ReadonlyMap<string, NavigatorDeviation> = new Map([
  ['slices: stats_after_load', { answer: { cache_size: undefined }, section: '§9.2', why: NO_CACHE }],
  ['slices: search "homeostasis"', { answer: [hit('cellular-homeostasis', 1, 'homeostasis'), hit('budget-homeostasis', 0.4), hit('feedback-loops', 0.4)], section: SEARCH, why: TEXT }],
  ['slices: search "Negative_Feedback"', { answer: [hit('cellular-homeostasis', 1, 'negative_feedback'), hit('feedback-loops', 1, 'negative_feedback')], section: SEARCH, why: AS_WRITTEN }],
  ['slices: search "feedback"', { answer: [hit('feedback-loops', 0.7, 'negative_feedback', 'positive_feedback'), hit('cellular-homeostasis', 0.7, 'negative_feedback'), hit('budget-homeostasis', 0.7, 'spending_feedback')], section: SEARCH, why: `${ONE_HIT}; ${TIES}` }],
  ['slices: search "feed"', { answer: [hit('cellular-homeostasis', 0.7, 'negative_feedback'), hit('budget-homeostasis', 0.7, 'spending_feedback'), hit('feedback-loops', 0.7, 'negative_feedback', 'positive_feedback')], section: SEARCH, why: `${ONE_HIT}; ${TIES}` }],
  ['slices: search "loop"', { answer: [hit('feedback-loops', 0.7, 'reinforcing_loop', 'balancing_loop', 'causal_loop'), hit('cellular-homeostasis', 0.4), hit('budget-homeostasis', 0.4)], section: SEARCH, why: `${ONE_HIT}; ${TEXT}` }],
  ['slices: loadSlice budget-homeostasis', { answer: { related_slices: ['cellular-homeostasis', 'feedback-loops'] }, section: '§13.2', why: RELATED_ONCE }],
  ['slices: loadSlice cellular-homeostasis', { answer: { related_slices: ['budget-homeostasis', 'feedback-loops'] }, section: '§13.2', why: RELATED_ONCE }],
  ['slices: loadSlice feedback-loops', { answer: { related_slices: ['cellular-homeostasis', 'budget-homeostasis'] }, section: '§13.2', why: RELATED_ONCE }],
  ['navigator-test-slices: stats_after_load', { answer: { cache_size: undefined }, section: '§9.2', why: NO_CACHE }],
  ['navigator-test-slices: search "Negative_Feedback"', { answer: [hit('biology-homeostasis', 0.7, 'feedback'), hit('systems-feedback', 0.7, 'feedback')], section: SEARCH, why: WITHIN }],
  ['navigator-test-slices: search "feedback"', { answer: [hit('systems-feedback', 1, 'feedback'), hit('biology-homeostasis', 1, 'feedback')], section: SEARCH, why: TIES }],
  ['navigator-test-slices: loadSlice biology-homeostasis', { answer: { related_slices: ['financial-diversification', 'systems-feedback'] }, section: '§13.2', why: RELATED_ONCE }],
  ['navigator-test-slices: loadSlice financial-diversification', { answer: { related_slices: ['biology-homeostasis'] }, section: '§13.2', why: RELATED_ONCE }],
  ['navigator-test-slices: loadSlice systems-feedback', { answer: { related_slices: ['biology-homeostasis'] }, section: '§13.2', why: RELATED_ONCE }],
  ['navigator-test-slices: loadSlice isolated-slice', { answer: unlinked(18), section: '§4.2 step 4', why: BY_ID }],
  ['navigator-test-slices: loadSlice test-yml', { answer: unlinked(14), section: '§4.2 step 4', why: BY_ID }],
]);

/**
 * Cases of the reference's observed attention behaviour (reference-behavior/attention-cases.json)
 * we answer otherwise, by fixture key, and why; docs/conformance.md "ILP attention". Each passes
 * only while attention-cases.ts finds our own answer.
 */
export const ATTENTION_DEVIATIONS: ReadonlyMap<string, string> = new Map([
  ['export_for_audit_shape', '§13.6: TRACE /export names one query (its Query-ID) and answers that query\'s record with total_concepts and top_influencers; the reference exports every query under `queries`. Each query and trace field it exports is in ours'],
  ['memory_stats', 'the tracker is bounded by count (maxQueries, maxTracesPerQuery; §10.4) rather than by an estimate of its bytes; the query and trace totals are the same'],
]);

/**
 * The same for episodic memory (reference-behavior/episodic-memory-cases.json); docs/conformance.md
 * "ILP episodic memory".
 */
export const MEMORY_DEVIATIONS: ReadonlyMap<string, string> = new Map([
  ['query_domains_biology_or_systems', '§4.3 retrieves episodes by domain and sets no order: the same episodes, ours most relevant first (confidence × decayed weight, as every query is ordered), the reference in its domain index\'s order'],
]);
