import { z } from 'zod';
import type { ConstitutionalHeader } from './header.js';
import { checkCustomPrinciples, type CompiledPrinciples } from './custom-principles.js';
import { answerScanner, DEFENCE_WORDS, UNCERTAINTY_PHRASES, wordsMatcher } from './principles.js';

/*
 * The constitutional enforcer (spec 004 §4, §8.4, §9.1, §10.1): an agent's response judged against
 * the limits of the request it answers (its Constitutional-Header) and the invocation so far. Every
 * limit comes from the header; where the RFC contradicts itself the normative text decides, and
 * each such decision is in docs/conformance.md "ILP constitution".
 */

/** An agent's response (§7.2): what the enforcer reads of it. */
export const AgentResponse = z
  .object({
    answer: z.string().max(1_000_000),
    concepts: z.array(z.string().max(200)).max(1000),
    confidence: z.number().min(0).max(1),
    reasoning: z.string().max(100_000).optional(),
    cost_usd: z.number().finite().nonnegative().optional(),
    sources: z.array(z.string().max(2000)).max(1000).optional(),
  })
  .passthrough();
export type AgentResponse = z.infer<typeof AgentResponse>;

/** The invocation so far; each field optional, the header's own figures standing in. */
export const InvocationContext = z
  .object({
    depth: z.number().int().nonnegative().max(100_000).optional(),
    invocations: z.number().int().nonnegative().max(10_000_000).optional(),
    cost_usd: z.number().finite().nonnegative().optional(),
    previous_agents: z.array(z.string().max(200)).max(100_000).optional(),
    /** The agent answering: its id joins `previous_agents` for the loop check. */
    agent: z.string().max(200).optional(),
    domain_from: z.string().max(100).optional(),
    domain_to: z.string().max(100).optional(),
    concepts_translated: z.array(z.string().max(200)).max(1000).optional(),
  })
  .strict();
export type InvocationContext = z.infer<typeof InvocationContext>;

type Severity = 'warning' | 'error' | 'fatal';
interface PrincipleFinding {
  principle: string;
  severity: Severity;
  message: string;
  suggested_action: string;
}

export interface ConstitutionalDecision {
  status: 200 | 207 | 403 | 409 | 429 | 451;
  constitutional_status: 'PASSED' | 'WARNING' | 'VIOLATION';
  violations: PrincipleFinding[];
  warnings: PrincipleFinding[];
}

/** What the enforcer's configuration (HOME/ilp.yaml, docs/ilp.md "Configuration") adds to the universal principles. */
export interface EnforcerOptions {
  /** Translations no agent may make, `from` → `to` by domain. */
  forbiddenTranslations?: readonly { from: string; to: string }[];
  /** The owner's own principles (§9.3 item 1), checked on every answer after the universal ones. */
  principles?: CompiledPrinciples;
}

const REASONING_MIN = 50;
const admits = wordsMatcher(UNCERTAINTY_PHRASES);
const scanner = answerScanner();
const scannerProbe = answerScanner({ global: false });
const defence = wordsMatcher(DEFENCE_WORDS);
const money = (usd: number) => `$${usd.toFixed(2)}`;

/*
 * Every check runs on every hop, so the principles push into the decision's two lists in the
 * order a reader meets them (fatal limits, then the answer's own principles, warnings last)
 * instead of each returning a list to be concatenated and split again: a check that finds
 * nothing allocates nothing. Nor does it create named closures: tsx (the sources as the benches
 * and bin/silas.js without a bundle run them) keeps names, with a call each time one is created.
 */
interface Findings {
  violations: PrincipleFinding[];
  warnings: PrincipleFinding[];
}

function exhausted(found: Findings, message: string): void {
  found.violations.push({ principle: 'recursion_budget', severity: 'fatal', message, suggested_action: 'Compose a final answer from the insights so far' });
}

function recursionBudget(header: ConstitutionalHeader, context: InvocationContext, responseCost: number, found: Findings): void {
  const depth = context.depth ?? header.depth;
  const invocations = context.invocations ?? 0;
  const spent = (context.cost_usd ?? header.budget_usd) + responseCost;
  if (depth >= header.max_depth) exhausted(found, `Max recursion depth reached (${depth}/${header.max_depth})`);
  if (invocations >= header.max_invocations) exhausted(found, `Max invocations reached (${invocations}/${header.max_invocations})`);
  if (spent >= header.max_budget_usd) exhausted(found, `Budget exhausted (${money(spent)} of ${money(header.max_budget_usd)})`);
}

/**
 * §8.4 and §13.4: the violation is a run longer than the maximum (3 calls when 2 are allowed).
 * The chain is the previous agents then the one answering (when named); its run is counted in
 * place rather than on a copy.
 */
function loopPrevention(header: ConstitutionalHeader, context: InvocationContext, found: Findings): void {
  if (!header.detect_loops) return;
  const previous = context.previous_agents ?? [];
  const agent = context.agent ? context.agent : undefined;
  const last = agent ?? previous.at(-1);
  if (last === undefined) return;
  let run = agent === undefined ? 0 : 1;
  for (let i = previous.length - 1; i >= 0 && previous[i] === last; i -= 1) run += 1;
  if (run <= header.max_same_agent_consecutive) return;
  found.violations.push({ principle: 'loop_prevention', severity: 'error', message: `Same agent invoked ${run} times consecutively`, suggested_action: 'Invoke a different agent for an alternative approach' });
}

/**
 * Whether the answer or its reasoning admits uncertainty. Each is read on its own: no phrase
 * holds a line break, and each text's start and end bound a word as the line break between them
 * would, so this is the same as reading `answer\nreasoning` without building it.
 */
function admitsUncertainty(response: AgentResponse): boolean {
  return admits.test(response.answer) || (response.reasoning !== undefined && admits.test(response.reasoning));
}

/** §4 epistemic honesty: low confidence must be admitted (a violation). */
function unadmittedLowConfidence(header: ConstitutionalHeader, response: AgentResponse, found: Findings): void {
  if (!header.enforce_epistemic_honesty || response.confidence >= header.confidence_threshold || admitsUncertainty(response)) return;
  found.violations.push({ principle: 'epistemic_honesty', severity: 'error', message: `Low confidence (${response.confidence.toFixed(2)}) but no uncertainty admission`, suggested_action: 'Add uncertainty disclaimer or invoke specialist agent' });
}

/** §4 epistemic honesty: a claim of authority wants a source (a warning). */
function unsourcedClaim(header: ConstitutionalHeader, response: AgentResponse, claim: string | null, found: Findings): void {
  if (!header.enforce_epistemic_honesty || claim === null || (response.sources !== undefined && response.sources.length > 0)) return;
  found.warnings.push({ principle: 'epistemic_honesty', severity: 'warning', message: `"${claim.toLowerCase()}" without a source`, suggested_action: 'Cite the sources the claim rests on' });
}

/** §9.1 item 4 is a MUST: with require_reasoning_trace, too little reasoning is a violation, else a warning. */
function reasoningTransparency(header: ConstitutionalHeader, response: AgentResponse, found: Findings): void {
  const length = response.reasoning === undefined ? 0 : response.reasoning.trim().length;
  if (length >= REASONING_MIN) return;
  const message = length === 0 ? 'No reasoning provided in response' : `Reasoning too short (${length} of at least ${REASONING_MIN} characters)`;
  const finding: PrincipleFinding = { principle: 'reasoning_transparency', severity: header.require_reasoning_trace ? 'error' : 'warning', message, suggested_action: 'Explain how the answer was reached' };
  (header.require_reasoning_trace ? found.violations : found.warnings).push(finding);
}

/** The clause of `text` around `at`: between the nearest `.`, `!`, `?`, `;` or line end on either side. */
function clauseAround(text: string, at: number): string {
  let start = at;
  while (start > 0 && !CLAUSE_ENDS.has(text[start - 1]!)) start -= 1;
  let end = at;
  while (end < text.length && !CLAUSE_ENDS.has(text[end]!)) end += 1;
  return text.slice(start, end + 1);
}
const CLAUSE_ENDS = new Set(['.', '!', '?', ';', '\n']);

interface AnswerScan {
  /** The first word of harm whose clause is not about defending against it (§10.1). */
  harm: string | null;
  /** The first claim of authority (epistemic honesty wants a source for it). */
  claim: string | null;
}
const NOTHING_FOUND: Readonly<AnswerScan> = Object.freeze({ harm: null, claim: null });

/**
 * One pass over the answer finds words of harm and claims of authority; only the clauses of the
 * words of harm are read again, for a defending word ("Avoid fraud; here is how to steal" counts).
 * Most answers hold neither, so a test without captures goes first: it stops at the first hit, and
 * only an answer that has one is read again for the hits themselves.
 */
function scanAnswer(answer: string): Readonly<AnswerScan> {
  if (!scannerProbe.test(answer)) return NOTHING_FOUND;
  let harm: string | null = null;
  let claim: string | null = null;
  scanner.lastIndex = 0;
  for (let hit = scanner.exec(answer); hit !== null && (harm === null || claim === null); hit = scanner.exec(answer)) {
    const [whole, harmWord, claimWords] = hit;
    if (claimWords !== undefined) claim ??= claimWords;
    else if (harm === null && !defence.test(clauseAround(answer, hit.index + whole.indexOf(harmWord!)))) harm = harmWord!;
    // The trailing boundary character may start the next word.
    scanner.lastIndex = hit.index + whole.length - 1;
  }
  return { harm, claim };
}

function safety(harm: string | null, found: Findings): void {
  if (harm === null) return;
  found.violations.push({ principle: 'safety', severity: 'error', message: `Potentially harmful content detected: "${harm.toLowerCase()}"`, suggested_action: 'Answer without instructions that could cause harm' });
}

function domainBoundary(context: InvocationContext, options: EnforcerOptions, found: Findings): void {
  const { domain_from: from, domain_to: to } = context;
  if (from === undefined || to === undefined || from === to) return;
  let forbidden = false;
  for (const pair of options.forbiddenTranslations ?? []) if (pair.from === from && pair.to === to) forbidden = true;
  if (!forbidden) return;
  const concepts = (context.concepts_translated ?? []).slice(0, 5).join(', ');
  found.violations.push({ principle: 'domain_boundary', severity: 'error', message: `Translation from ${from} to ${to} is forbidden${concepts ? ` (${concepts})` : ''}`, suggested_action: `Invoke a ${to} agent instead of translating` });
}

/** The status a decision answers with: the gravest principle decides (§3.3, §8). */
function decide(found: Findings): ConstitutionalDecision {
  const { violations, warnings } = found;
  let status: ConstitutionalDecision['status'] = violations.length > 0 ? 403 : warnings.length > 0 ? 207 : 200;
  let gravest = 0;
  for (const { principle } of violations) {
    const rank = principle === 'recursion_budget' ? 3 : principle === 'loop_prevention' ? 2 : principle === 'domain_boundary' ? 1 : 0;
    if (rank > gravest) gravest = rank;
  }
  if (gravest === 3) status = 429;
  else if (gravest === 2) status = 409;
  else if (gravest === 1) status = 451;
  return { status, constitutional_status: violations.length > 0 ? 'VIOLATION' : warnings.length > 0 ? 'WARNING' : 'PASSED', violations, warnings };
}

export function enforceConstitution(header: ConstitutionalHeader, response: AgentResponse, context: InvocationContext = {}, options: EnforcerOptions = {}): ConstitutionalDecision {
  const found: Findings = { violations: [], warnings: [] };
  recursionBudget(header, context, response.cost_usd ?? 0, found);
  loopPrevention(header, context, found);
  domainBoundary(context, options, found);
  unadmittedLowConfidence(header, response, found);
  reasoningTransparency(header, response, found);
  const scan = scanAnswer(response.answer);
  safety(scan.harm, found);
  const principles = options.principles;
  if (principles !== undefined && principles.list.length > 0) {
    for (const finding of checkCustomPrinciples(principles, header.domain, response)) (finding.severity === 'warning' ? found.warnings : found.violations).push(finding);
  }
  unsourcedClaim(header, response, scan.claim, found);
  return decide(found);
}

/**
 * Whether an invocation may start at all (spec 004 §4.2 step 2, "VALIDATE budget"): the limits of
 * depth, invocations, cost, loops and domain boundaries checked before the agent runs, so a
 * refused hop never calls the model. The answer's own principles are judged after it, by
 * enforceConstitution.
 */
export function admitInvocation(header: ConstitutionalHeader, context: InvocationContext, options: EnforcerOptions = {}): ConstitutionalDecision {
  const found: Findings = { violations: [], warnings: [] };
  recursionBudget(header, context, 0, found);
  loopPrevention(header, context, found);
  domainBoundary(context, options, found);
  return decide(found);
}
