import type { IlpComposition, IlpSummary } from '../../store/ilp-state.js';
import { ILP_STATUS_REASONS } from '../../../src-shared/schemas/ilp.js';

/*
 * How the ILP page words a composition: status codes with the reason phrases of spec 004 §3.3 and
 * §8 (as the codec writes them, docs/ilp.md "The wire codec"), costs, confidences and agent kinds.
 */

type Hop = IlpComposition['hop_list'][number];

const REASONS: Readonly<Record<number, string>> = ILP_STATUS_REASONS;

/** "429 Budget Exceeded"; a code the RFC does not name is shown bare. */
export function statusText(status: number): string {
  const reason = REASONS[status];
  return reason ? `${status} ${reason}` : String(status);
}

/** Good, a warning (207, or a warning on the edge) or bad, for the colour beside the words. */
export function statusTone(status: number, severity: Hop['severity'] = null): 'ok' | 'warning' | 'bad' {
  if (status >= 300 || severity === 'error' || severity === 'fatal') return 'bad';
  if (status === 207 || severity === 'warning') return 'warning';
  return 'ok';
}

/** Model costs are fractions of a cent (spec 004 §6.1 budgets start at $0.02): four decimals. */
export function usdText(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

export function confidenceText(confidence: number | null): string {
  return confidence === null ? 'no confidence given' : `confidence ${confidence.toFixed(2)}`;
}

export function constitutionalText(status: IlpSummary['constitutional_status']): string {
  return status ?? 'not judged';
}

export function agentKindText(kind: Hop['kind']): string {
  return kind === 'meta' ? 'meta-agent' : kind === 'remote' ? 'remote agent' : 'specialist';
}

export function hopsText(count: number): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? 'hop' : 'hops'}`;
}

const SEVERITY_RANK = { warning: 1, error: 2, fatal: 3 } as const;

/** The gravest principle any hop's edge carries, with its severity: what the composition as a whole ran into. */
export function gravestPrinciple(hops: readonly Hop[]): { principle: string; severity: NonNullable<Hop['severity']> } | null {
  let gravest: { principle: string; severity: NonNullable<Hop['severity']> } | null = null;
  for (const hop of hops) {
    if (hop.principle === null) continue;
    const severity = hop.severity ?? 'warning';
    if (gravest === null || SEVERITY_RANK[severity] > SEVERITY_RANK[gravest.severity]) gravest = { principle: hop.principle, severity };
  }
  return gravest;
}

/** "recursion_budget · error", or "none" when every hop passed. */
export function principleText(hops: readonly Hop[]): string {
  const gravest = gravestPrinciple(hops);
  return gravest ? `${gravest.principle} · ${gravest.severity}` : 'none';
}
