import { ASKING_RULE_LIMITS, type AskingRule, type ToolCallApprovalRequest } from '../../../src-shared/schemas/approval.js';
import type { JsonValue } from '../../../src-shared/schemas/json.js';
import { riskLabel } from '../../../src-shared/review/cta.js';
import type { RiskLevel } from '../../../src-shared/schemas/review.js';
import { UNSAFE_SHOWN_CHARS } from '../../../src-shared/text/unsafe-chars.js';

/*
 * The tool-call card's "Why" and its notification (docs/review.md "Why"): the policy, the rule
 * that asked and the arguments it constrains, in words the desktop shell and the browser both
 * show. The policy's author and the asking proxy choose this text, so every piece is stripped of
 * control characters and clipped before it is put in a sentence.
 */

/** Controls, bidirectional marks and invisible characters (src-shared/text/unsafe-chars.ts). */
const UNSAFE = new RegExp(`[${UNSAFE_SHOWN_CHARS}]+`, 'g');
/** How many argument constraints the sentence names; the card's details keep them all. */
const ARGS_IN_WORDS = 3;
/** An argument's value as the sentence quotes it. */
const VALUE_CHARS = 80;
/** The whole rationale: "one or two sentences" (spec 002 §0.5.3). */
const RATIONALE_CHARS = 1000;

/** `text` on one line without control characters, at most `max` characters (an ellipsis marks a cut). */
export function cardText(text: string, max: number): string {
  const clean = text.replace(UNSAFE, ' ').trim();
  if (clean.length <= max) return clean;
  // Never end on half a surrogate pair.
  const cut = clean.slice(0, max - 1).replace(/[\ud800-\udbff]$/, '');
  return `${cut}…`;
}

/** The rule as the card's details carry it: every field made safe to show. */
export function shownRule(rule: AskingRule): AskingRule {
  return {
    ...(rule.policyFile !== undefined ? { policyFile: cardText(rule.policyFile, ASKING_RULE_LIMITS.path) } : {}),
    path: cardText(rule.path, ASKING_RULE_LIMITS.text),
    tool: cardText(rule.tool, ASKING_RULE_LIMITS.text),
    args: rule.args.map((arg) => ({ name: cardText(arg.name, ASKING_RULE_LIMITS.text), pattern: cardText(arg.pattern, ASKING_RULE_LIMITS.pattern) })),
  };
}

/**
 * Why the person is asked: the rule that asked, its policy and file, and for a rule that
 * constrains arguments, what the call's (redacted) arguments were and the patterns they met.
 * A proxy that sends no rule gets its own reason, as before.
 */
export function whyAsked(request: ToolCallApprovalRequest): string {
  const rule = request.askedBy;
  if (!rule) return cardText(request.reason || `Policy ${request.policyName} asks before this call (rule ${request.rule}).`, RATIONALE_CHARS);
  const shown = shownRule(rule);
  const file = shown.policyFile ? ` (${shown.policyFile})` : '';
  const tool = cardText(request.tool, ASKING_RULE_LIMITS.text);
  let why = `Rule ${shown.path} "ask: ${shown.tool}" of policy "${cardText(request.policyName, ASKING_RULE_LIMITS.text)}"${file} asks you before every ${tool} call`;
  if (shown.args.length === 0) return cardText(`${why}.`, RATIONALE_CHARS);
  const named = rule.args.slice(0, ARGS_IN_WORDS).map((arg, i) => `${shown.args[i]!.name} ${valueOf(request.display, arg.name)} matches ${shown.args[i]!.pattern}`);
  const more = shown.args.length > ARGS_IN_WORDS ? ` and ${shown.args.length - ARGS_IN_WORDS} more` : '';
  why += ` its allow_args permit; here ${named.join(', ')}${more}.`;
  return cardText(why, RATIONALE_CHARS);
}

/** The notification for the card: the same words whichever surface shows it. */
export function toolCallNotification(request: ToolCallApprovalRequest, riskLevel: RiskLevel, rationale: string): { title: string; body: string } {
  const title = `Approve ${cardText(request.tool, ASKING_RULE_LIMITS.text)} on ${cardText(request.server, ASKING_RULE_LIMITS.text)}?`;
  return { title: cardText(title, 300), body: cardText(`${riskLabel(riskLevel)}. ${rationale}`, RATIONALE_CHARS) };
}

/** The argument `name` as the card shows it (the DLP-redacted display), quoted and clipped. */
function valueOf(display: JsonValue, name: string): string {
  const record = display !== null && typeof display === 'object' && !Array.isArray(display) ? display : null;
  const value = record && Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
  if (value === undefined) return '(absent)';
  return cardText(JSON.stringify(value), VALUE_CHARS);
}
