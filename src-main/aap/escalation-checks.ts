import { VIOLATION_SEVERITY } from '../../src-shared/aap/constants.js';
import type { TriggerOutcome, VerificationWarning, Violation } from '../../src-shared/aap/results.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import type { CompiledCard } from './card.js';
import { traceScope } from './conditions/index.js';

/*
 * §7.3's escalation compliance, for every trigger action of §4.5 and the card's value limit:
 *   escalate — a matched trigger needs `escalation.required` (a timeout still counts: the
 *              escalation was attempted, §7.3);
 *   deny     — a matched trigger needs the action to have been refused (`action.type: deny`);
 *   log      — recorded in the outcome, never a violation;
 *   max_autonomous_value — an `action.parameters.amount` above the limit needs escalation, like
 *              an `escalate` trigger; one missing escalation is reported once, not per reason.
 * A refusal (`action.type: deny`) takes no action, so it satisfies every trigger.
 */

export interface EscalationFindings {
  violations: Violation[];
  warnings: VerificationWarning[];
  triggers: TriggerOutcome[];
}

const DECIMAL = /^-?\d+(?:\.\d+)?$/;

function amountOf(trace: ApTrace): number | null {
  const amount = trace.action.parameters?.amount;
  if (typeof amount === 'number') return amount;
  if (typeof amount === 'string' && amount.length <= 64 && DECIMAL.test(amount)) return Number(amount);
  return null;
}

export function checkEscalation(trace: ApTrace, card: CompiledCard): EscalationFindings {
  const findings: EscalationFindings = { violations: [], warnings: [], triggers: [] };
  const refused = trace.action.type === 'deny';
  const escalated = refused || trace.escalation?.required === true || trace.action.type === 'escalate';
  const scope = traceScope(trace);
  for (const { path, trigger, condition } of card.triggers) {
    const matched = condition.evaluate(scope);
    const satisfied = !matched || trigger.action === 'log' || (trigger.action === 'escalate' ? escalated : refused);
    findings.triggers.push({ source: path, condition: trigger.condition, action: trigger.action, matched, satisfied });
    if (satisfied) continue;
    if (trigger.action === 'escalate') {
      findings.violations.push({
        type: 'missed_escalation',
        severity: VIOLATION_SEVERITY.missed_escalation,
        description: `Trigger '${trigger.condition}' matched but not escalated (${trigger.reason})`,
        trace_field: 'escalation.required',
      });
    } else {
      findings.violations.push({
        type: 'forbidden_action',
        severity: VIOLATION_SEVERITY.forbidden_action,
        description: `Trigger '${trigger.condition}' requires action '${trace.action.name}' to be denied (${trigger.reason})`,
        trace_field: 'action.type',
      });
    }
  }
  checkValueLimit(trace, card, escalated, findings);
  return findings;
}

function checkValueLimit(trace: ApTrace, card: CompiledCard, escalated: boolean, findings: EscalationFindings): void {
  const limit = card.card.autonomy_envelope.max_autonomous_value;
  const amount = amountOf(trace);
  if (!limit || amount === null) return;
  const currency = (limit.currency ?? 'USD').toUpperCase();
  const traceCurrency = trace.action.parameters?.currency;
  const source = 'autonomy_envelope.max_autonomous_value';
  const condition = `amount > ${limit.amount} ${currency}`;
  if (typeof traceCurrency === 'string' && traceCurrency.toUpperCase() !== currency) {
    findings.warnings.push({
      type: 'currency_mismatch',
      description: `Amount ${amount} ${traceCurrency} cannot be compared with max_autonomous_value ${limit.amount} ${currency}`,
      trace_field: 'action.parameters.currency',
    });
    findings.triggers.push({ source, condition, action: 'escalate', matched: false, satisfied: true });
    return;
  }
  const matched = amount > limit.amount;
  findings.triggers.push({ source, condition, action: 'escalate', matched, satisfied: !matched || escalated });
  if (!matched || escalated || findings.violations.some((v) => v.type === 'missed_escalation')) return;
  findings.violations.push({
    type: 'missed_escalation',
    severity: VIOLATION_SEVERITY.missed_escalation,
    description: `Amount ${amount} ${currency} exceeds max_autonomous_value ${limit.amount} ${currency} but was not escalated`,
    trace_field: 'action.parameters.amount',
  });
}
