import { z } from 'zod';
import type { ConstitutionalHeader } from './header.js';
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

/** What the enforcer's configuration adds to the universal principles (§4, domain translation). */
export interface EnforcerOptions {
  /** Translations no agent may make, `from` → `to` by domain. */
  forbiddenTranslations?: readonly { from: string; to: string }[];
}

const REASONING_MIN = 50;
const admits = wordsMatcher(UNCERTAINTY_PHRASES);
const scanner = answerScanner();
const defence = wordsMatcher(DEFENCE_WORDS);
const money = (usd: number) => `$${usd.toFixed(2)}`;

function recursionBudget(header: ConstitutionalHeader, context: InvocationContext, response: AgentResponse): PrincipleFinding[] {
  const depth = context.depth ?? header.depth;
  const invocations = context.invocations ?? 0;
  const spent = (context.cost_usd ?? header.budget_usd) + (response.cost_usd ?? 0);
  const out: PrincipleFinding[] = [];
  const fatal = (message: string) => out.push({ principle: 'recursion_budget', severity: 'fatal', message, suggested_action: 'Compose a final answer from the insights so far' });
  if (depth >= header.max_depth) fatal(`Max recursion depth reached (${depth}/${header.max_depth})`);
  if (invocations >= header.max_invocations) fatal(`Max invocations reached (${invocations}/${header.max_invocations})`);
  if (spent >= header.max_budget_usd) fatal(`Budget exhausted (${money(spent)} of ${money(header.max_budget_usd)})`);
  return out;
}

/** §8.4 and §13.4: the violation is a run longer than the maximum (3 calls when 2 are allowed). */
function loopPrevention(header: ConstitutionalHeader, context: InvocationContext): PrincipleFinding[] {
  if (!header.detect_loops) return [];
  const chain = [...(context.previous_agents ?? []), ...(context.agent ? [context.agent] : [])];
  const last = chain.at(-1);
  if (last === undefined) return [];
  let run = 0;
  for (let i = chain.length - 1; i >= 0 && chain[i] === last; i -= 1) run += 1;
  if (run <= header.max_same_agent_consecutive) return [];
  return [{ principle: 'loop_prevention', severity: 'error', message: `Same agent invoked ${run} times consecutively`, suggested_action: 'Invoke a different agent for an alternative approach' }];
}

function epistemicHonesty(header: ConstitutionalHeader, response: AgentResponse, claim: string | null): { violations: PrincipleFinding[]; warnings: PrincipleFinding[] } {
  const violations: PrincipleFinding[] = [];
  const warnings: PrincipleFinding[] = [];
  if (!header.enforce_epistemic_honesty) return { violations, warnings };
  const said = `${response.answer}\n${response.reasoning ?? ''}`;
  if (response.confidence < header.confidence_threshold && !admits.test(said)) {
    violations.push({ principle: 'epistemic_honesty', severity: 'error', message: `Low confidence (${response.confidence.toFixed(2)}) but no uncertainty admission`, suggested_action: 'Add uncertainty disclaimer or invoke specialist agent' });
  }
  if (claim !== null && (response.sources ?? []).length === 0) {
    warnings.push({ principle: 'epistemic_honesty', severity: 'warning', message: `"${claim.toLowerCase()}" without a source`, suggested_action: 'Cite the sources the claim rests on' });
  }
  return { violations, warnings };
}

/** §9.1 item 4 is a MUST: with require_reasoning_trace, too little reasoning is a violation, else a warning. */
function reasoningTransparency(header: ConstitutionalHeader, response: AgentResponse): PrincipleFinding[] {
  const length = (response.reasoning ?? '').trim().length;
  if (length >= REASONING_MIN) return [];
  const message = length === 0 ? 'No reasoning provided in response' : `Reasoning too short (${length} of at least ${REASONING_MIN} characters)`;
  return [{ principle: 'reasoning_transparency', severity: header.require_reasoning_trace ? 'error' : 'warning', message, suggested_action: 'Explain how the answer was reached' }];
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

/**
 * One pass over the answer finds words of harm and claims of authority; only the clauses of the
 * words of harm are read again, for a defending word ("Avoid fraud; here is how to steal" counts).
 */
function scanAnswer(answer: string): AnswerScan {
  const found: AnswerScan = { harm: null, claim: null };
  scanner.lastIndex = 0;
  for (let hit = scanner.exec(answer); hit !== null && (found.harm === null || found.claim === null); hit = scanner.exec(answer)) {
    const [whole, harm, claim] = hit;
    if (claim !== undefined) found.claim ??= claim;
    else if (found.harm === null && !defence.test(clauseAround(answer, hit.index + whole.indexOf(harm!)))) found.harm = harm!;
    // The trailing boundary character may start the next word.
    scanner.lastIndex = hit.index + whole.length - 1;
  }
  return found;
}

function safety(scan: AnswerScan): PrincipleFinding[] {
  if (scan.harm === null) return [];
  return [{ principle: 'safety', severity: 'error', message: `Potentially harmful content detected: "${scan.harm.toLowerCase()}"`, suggested_action: 'Answer without instructions that could cause harm' }];
}

function domainBoundary(context: InvocationContext, options: EnforcerOptions): PrincipleFinding[] {
  const { domain_from: from, domain_to: to } = context;
  if (from === undefined || to === undefined || from === to) return [];
  if (!(options.forbiddenTranslations ?? []).some((pair) => pair.from === from && pair.to === to)) return [];
  const concepts = (context.concepts_translated ?? []).slice(0, 5).join(', ');
  return [{ principle: 'domain_boundary', severity: 'error', message: `Translation from ${from} to ${to} is forbidden${concepts ? ` (${concepts})` : ''}`, suggested_action: `Invoke a ${to} agent instead of translating` }];
}

/** The status a decision answers with: the gravest principle decides (§3.3, §8). */
function statusOf(violations: readonly PrincipleFinding[], warnings: readonly PrincipleFinding[]): ConstitutionalDecision['status'] {
  const has = (principle: string) => violations.some((v) => v.principle === principle);
  if (has('recursion_budget')) return 429;
  if (has('loop_prevention')) return 409;
  if (has('domain_boundary')) return 451;
  if (violations.length > 0) return 403;
  return warnings.length > 0 ? 207 : 200;
}

export function enforceConstitution(header: ConstitutionalHeader, response: AgentResponse, context: InvocationContext = {}, options: EnforcerOptions = {}): ConstitutionalDecision {
  const scan = scanAnswer(response.answer);
  const honesty = epistemicHonesty(header, response, scan.claim);
  const transparency = reasoningTransparency(header, response);
  const found = [...recursionBudget(header, context, response), ...loopPrevention(header, context), ...domainBoundary(context, options), ...honesty.violations, ...transparency, ...safety(scan), ...honesty.warnings];
  const violations = found.filter((f) => f.severity !== 'warning');
  const warnings = found.filter((f) => f.severity === 'warning');
  return { status: statusOf(violations, warnings), constitutional_status: violations.length > 0 ? 'VIOLATION' : warnings.length > 0 ? 'WARNING' : 'PASSED', violations, warnings };
}

/**
 * Whether an invocation may start at all (spec 004 §4.2 step 2, "VALIDATE budget"): the limits of
 * depth, invocations, cost, loops and domain boundaries checked before the agent runs, so a
 * refused hop never calls the model. The answer's own principles are judged after it, by
 * enforceConstitution.
 */
export function admitInvocation(header: ConstitutionalHeader, context: InvocationContext, options: EnforcerOptions = {}): ConstitutionalDecision {
  const violations = [...recursionBudget(header, context, { answer: '', concepts: [], confidence: 1 }), ...loopPrevention(header, context), ...domainBoundary(context, options)];
  return { status: statusOf(violations, []), constitutional_status: violations.length > 0 ? 'VIOLATION' : 'PASSED', violations, warnings: [] };
}
