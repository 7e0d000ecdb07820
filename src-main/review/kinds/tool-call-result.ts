import { ASKING_RULE_LIMITS, type ToolCallApprovalRequest } from '../../../src-shared/schemas/approval.js';
import { orderActions, riskLabel } from '../../../src-shared/review/cta.js';
import type { CardOf, RiskLevel } from '../../../src-shared/schemas/review.js';
import { cardText } from './tool-call-why.js';

/*
 * The tool_call card when the question is a server's answer, not a call
 * (`x-silas-threats.results: ask`, docs/threat-detection.md): the injection detectors found
 * instructions in what read_page returned, and the person decides whether the agent reads it. It
 * must not read like a call card: other intent, other actions, no "always allow", and the
 * findings in its details. The excerpts are the server's text: kept as found (clipped) for the
 * cockpit, which spells out invisible characters and never renders markup; the sentences strip them.
 */

/** The sentence and the notification name at most this many rules. */
const RULES_IN_WORDS = 3;
const RATIONALE_CHARS = 1000;
const SHA256_HEX = /^[0-9a-f]{64}$/;

const LET_THROUGH = { choice: 'allow_once', label: 'Let it through', consequence: 'The agent receives this answer once, exactly as held; signed with your key' };
const WITHHOLD = { choice: 'deny', label: 'Withhold it', consequence: 'The agent receives an error (-32004) instead of the answer' };

/** What a result question must carry, or why it is refused: `args` exactly `{ result_sha256 }`, shown as it is. */
export function resultRequestProblem(request: ToolCallApprovalRequest): string | null {
  const args = request.args;
  const record = args !== null && typeof args === 'object' && !Array.isArray(args) ? args : null;
  const hash = record?.result_sha256;
  const exact = record !== null && Object.keys(record).length === 1 && typeof hash === 'string' && SHA256_HEX.test(hash);
  return exact ? null : 'a result question binds exactly { result_sha256: <64 lowercase hex> } as args';
}

type ResultCard = Pick<CardOf<'tool_call'>, 'intent' | 'riskLevel' | 'riskReasons' | 'rationale' | 'actions' | 'notification'> & { details: Pick<CardOf<'tool_call'>['details'], 'subject' | 'findings'> };

/** The card's words and actions for a held answer; the caller adds the fields every tool_call card has. */
export function resultCard(request: ToolCallApprovalRequest): ResultCard {
  const riskLevel: RiskLevel = 'high';
  const tool = cardText(request.tool, ASKING_RULE_LIMITS.text);
  const server = cardText(request.server, ASKING_RULE_LIMITS.text);
  const findings = (request.findings ?? []).map((f) => ({ rule: f.rule, description: f.description, path: f.path, excerpt: f.excerpt }));
  const rules = [...new Set(findings.map((f) => cardText(f.rule, 100)))];
  const named = rules.length === 0 ? '' : ` (${rules.slice(0, RULES_IN_WORDS).join(', ')}${rules.length > RULES_IN_WORDS ? ` and ${rules.length - RULES_IN_WORDS} more` : ''})`;
  const why = cardText(`${request.reason || `The answer of ${tool} carries what looks like injected instructions`}. It is held until you decide; the agent would read it as it reads your words.`, RATIONALE_CHARS);
  const title = cardText(`Let the answer of ${tool} on ${server} reach the agent?`, 300);
  return {
    intent: title,
    riskLevel,
    riskReasons: [`the answer carries text that reads as instructions to the agent (prompt injection)${named}`],
    rationale: why,
    actions: orderActions(riskLevel, [LET_THROUGH], WITHHOLD),
    details: { subject: 'result', findings },
    notification: { title, body: cardText(`${riskLabel(riskLevel)}. ${why}`, RATIONALE_CHARS) },
  };
}
