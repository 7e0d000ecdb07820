import type { AnswerScreen } from '../composition/hop.js';
import { enforceConstitution, type EnforcerOptions } from '../constitution/enforce.js';
import { checkConstitutionalHeader } from '../constitution/header.js';
import { isSliceId, NAME_RULE, parseSlice } from '../navigator/slice-file.js';

/*
 * Validation of a candidate slice (spec 004 §4.3 "Candidate Generation": constitutional compliance
 * scoring 0–1 and the `should_deploy` flag; "Safety Mechanisms" 1 and 2). A candidate passes only
 * if all of these hold:
 *
 * (a) its text is a slice: `parseSlice`, which also refuses any string that orders its reader
 *     (§10.3), each problem with its label and line;
 * (b) the runtime's steering screen (the injection detector it runs on specialists' answers,
 *     docs/ilp.md "Composition") finds no instruction in its title, concepts, knowledge or
 *     rationale — knowledge that tells an agent to raise a limit or skip the enforcer would steer
 *     every composition that loads it. The runtime's screen is the slices' own scan
 *     (ilp/composition/steering.ts), so it also covers the rationale, which is not part of the
 *     slice's text that `parseSlice` scans;
 * (c) the constitutional enforcer accepts it as an agent's response (answer = knowledge,
 *     reasoning = rationale, sources = the episodes it was learned from) under a strict header:
 *     the RFC's values with epistemic honesty and a reasoning trace required (§9.1 items 4 and 6);
 *     200 or 207.
 *
 * `should_deploy` also needs confidence ≥ 0.7 (§9.1 item 6's threshold): a slice is read as
 * trusted knowledge, so uncertain knowledge is not offered for deployment however honest it is.
 */

export interface CandidateForValidation {
  slice_id: string;
  text: string;
  /** Shown as the file in parse problems (`slice-registry:ID@vN`). */
  label: string;
  rationale: string;
  confidence: number;
  /** The episode ids the pattern rests on. */
  sources: readonly string[];
}

export interface Validation {
  parsed: boolean;
  screened: boolean;
  /** The enforcer's status (200, 207, 403 …); null when the text did not parse. */
  constitutional_status_code: number | null;
  /** 1 with no finding; each violation costs 0.5, each warning 0.1, a steering finding 0.5; never below 0. */
  constitutional_score: number;
  should_deploy: boolean;
  /** Why it may not be deployed; empty when it may. */
  reasons: string[];
  /** The enforcer's warnings (a 207), kept with the version for the owner to read. */
  warnings: string[];
}

const DEPLOY_CONFIDENCE = 0.7;

const STRICT_HEADER = (() => {
  const checked = checkConstitutionalHeader({ domain: 'meta', depth: 0, budget_usd: 0, enforce_epistemic_honesty: true, require_reasoning_trace: true });
  if (!checked.ok) throw new Error(`the validation header is not valid: ${checked.message}`);
  return checked.header;
})();

export function validateCandidate(candidate: CandidateForValidation, screen: AnswerScreen, enforcer: EnforcerOptions = {}): Validation {
  const reasons: string[] = [];
  const warnings: string[] = [];
  if (!isSliceId(candidate.slice_id)) reasons.push(`"${candidate.slice_id.slice(0, 80)}" is not a slice id: ${NAME_RULE}`);

  const parsed = parseSlice(candidate.text, candidate.label);
  if (!parsed.ok) for (const p of parsed.problems) reasons.push(`${p.file}:${p.line}:${p.column}: ${p.field}: ${p.message}`);
  else if (parsed.slice.metadata.id !== candidate.slice_id) reasons.push(`the text's id is "${parsed.slice.metadata.id}", not the candidate's "${candidate.slice_id}"`);
  const slice = parsed.ok ? parsed.slice : null;

  let score = 1;
  const screenedText = slice ? [slice.metadata.title, slice.metadata.concepts.join(' '), slice.knowledge, candidate.rationale].join('\n') : `${candidate.text}\n${candidate.rationale}`;
  const steering = screen(screenedText);
  if (steering !== null) {
    reasons.push(`steering: the candidate carries an instruction to the agents that would read it (${steering}); a slice holds knowledge only (spec 004 §10.3)`);
    score -= 0.5;
  }

  let status: number | null = null;
  if (slice) {
    const response = { answer: slice.knowledge, concepts: slice.metadata.concepts, confidence: candidate.confidence, reasoning: candidate.rationale, sources: [...candidate.sources], cost_usd: 0 };
    const decision = enforceConstitution(STRICT_HEADER, response, { depth: 0, invocations: 0, cost_usd: 0 }, enforcer);
    status = decision.status;
    for (const v of decision.violations) reasons.push(`constitution ${decision.status} ${v.principle} (${v.severity}): ${v.message}; ${v.suggested_action}`);
    for (const w of decision.warnings) warnings.push(`constitution ${w.principle} (warning): ${w.message}`);
    score -= 0.5 * decision.violations.length + 0.1 * decision.warnings.length;
    if (decision.status !== 200 && decision.status !== 207 && decision.violations.length === 0) reasons.push(`constitution ${decision.status}: not accepted`);
  } else {
    score = 0;
  }
  if (candidate.confidence < DEPLOY_CONFIDENCE) reasons.push(`confidence ${candidate.confidence.toFixed(2)} is below ${DEPLOY_CONFIDENCE}: a slice is read as trusted knowledge`);
  return {
    parsed: parsed.ok,
    screened: steering === null,
    constitutional_status_code: status,
    constitutional_score: Math.round(Math.max(0, Math.min(1, score)) * 1000) / 1000,
    should_deploy: reasons.length === 0,
    reasons,
    warnings,
  };
}
