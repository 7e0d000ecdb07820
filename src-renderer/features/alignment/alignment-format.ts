import type { AlignmentAgentView, AlignmentCardInForce, AlignmentCardProblem } from '../../store/alignment-state.js';
import { formatCount } from '../activity/audit-format.js';

/*
 * The Alignment page's words: counts, card provenance and signatures, and the summaries that name
 * the charts for people who do not see them.
 */

export { formatCount };

/** "1 trace", "1,234 traces". */
function countOf(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** "12.5%". */
export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

export function cardSourceText(source: AlignmentCardInForce['source'] | null): string {
  if (source === 'derived') return 'Derived from the policy';
  if (source === 'edited') return 'Edited in the cockpit';
  return 'No card yet';
}

export function signatureText(signature: AlignmentCardInForce['signature']): string {
  if (signature === 'owner') return 'Signed with the owner key';
  if (signature === 'invalid') return 'Signature does not verify';
  return 'Unsigned';
}

export function signatureTone(signature: AlignmentCardInForce['signature']): 'ok' | 'warn' | 'bad' {
  return signature === 'owner' ? 'ok' : signature === 'invalid' ? 'bad' : 'warn';
}

/** The agent's counts on one line. */
export function agentCountsText(agent: Pick<AlignmentAgentView, 'traces' | 'violations' | 'escalations' | 'alerts'>): string {
  return [countOf(agent.traces, 'trace'), countOf(agent.violations, 'violation'), countOf(agent.escalations, 'escalation'), countOf(agent.alerts, 'drift alert')].join(' · ');
}

/** The similarity chart's accessible name. */
export function similarityLabel(traces: number, alerts: number): string {
  return `Similarity to baseline: ${countOf(traces, 'trace')}, ${countOf(alerts, 'drift alert')}`;
}

/** The escalation chart's accessible name. */
export function escalationLabel(traces: number, escalated: number): string {
  return `Escalation rate: ${countOf(traces, 'trace')}, ${formatCount(escalated)} escalated (${percent(traces === 0 ? 0 : escalated / traces)})`;
}

/** The drift chart's text summary: where the baseline stands and how far the agent is from it now. */
export function driftSummary(options: { traces: number; baseline: number | null; latest: number | null; threshold: number; alerts: number }): string {
  const { traces, baseline, latest, threshold, alerts } = options;
  if (traces === 0) return 'No traces recorded yet.';
  if (baseline === null) return `${countOf(traces, 'trace')}; the drift baseline is still forming, so there is no similarity to it yet.`;
  const now = latest === null ? '' : ` Similarity to it is now ${latest.toFixed(2)} (alert threshold ${threshold.toFixed(2)}${latest < threshold ? ', below it' : ''}).`;
  return `${countOf(traces, 'trace')}; the baseline formed over the first ${countOf(baseline, 'trace')}.${now} ${alerts === 0 ? 'No drift alert.' : `${countOf(alerts, 'drift alert')}.`}`;
}

/** The escalation chart's text summary. */
export function escalationSummary(traces: number, escalated: number, recentRate: number | null, window: number): string {
  if (traces === 0) return 'No traces recorded yet.';
  const recent = recentRate === null ? '' : ` Over the last ${countOf(Math.min(window, traces), 'trace')}: ${percent(recentRate)}.`;
  return `${formatCount(escalated)} of ${countOf(traces, 'trace')} escalated to you (${percent(escalated / traces)}).${recent}`;
}

/** One problem of the card draft: its JSON path, what is wrong, what was expected. */
export function cardProblemText(problem: AlignmentCardProblem): string {
  const expected = problem.expected ? ` (expected ${problem.expected})` : '';
  if (problem.path === '') return `${problem.message.charAt(0).toUpperCase()}${problem.message.slice(1)}${expected}`;
  return `${problem.path}: ${problem.message}${expected}`;
}

/** A trace id shortened for a list; the full id stays in the accessible name. */
export function shortTraceId(traceId: string): string {
  return traceId.length > 18 ? `${traceId.slice(0, 17)}…` : traceId;
}

/** Check names from the verifier (`card_reference`) as words. */
export function checkName(check: string): string {
  const words = check.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
