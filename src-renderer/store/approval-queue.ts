import type { PendingApproval } from '../../src-shared/schemas/approval.js';

/*
 * Pure queue logic for the Review surface (spec 002 §0.5.1, §0.5.4): ordering, what counts
 * as elevated risk, when the queue is dense enough to warn, and which cards are new.
 */

export type Risk = PendingApproval['risk'];

const RISK_LABELS: Record<Risk, string> = {
  low: 'Low risk',
  medium: 'Medium risk',
  high: 'High risk',
  critical: 'Critical risk',
};

/** The risk badge's words, e.g. "High risk" (§0.5.2). */
export function riskLabel(risk: Risk): string {
  return RISK_LABELS[risk];
}

/** Oldest request first; ties keep a stable order by id so the active card never flickers. */
export function sortOldestFirst(pending: readonly PendingApproval[]): PendingApproval[] {
  return [...pending].sort((a, b) => {
    const byTime = Date.parse(a.requestedAt) - Date.parse(b.requestedAt);
    if (byTime !== 0 && Number.isFinite(byTime)) return byTime;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

/** Medium risk or higher: what §0.5.4 counts towards approval fatigue. */
export function isMediumOrHigher(risk: Risk): boolean {
  return risk !== 'low';
}

/** High and critical (the spec's "irreversible") decisions: deny is recommended, details open. */
export function isElevated(risk: Risk): boolean {
  return risk === 'high' || risk === 'critical';
}

/** §0.5.4 item 4: more than this many medium+ approvals queued shows the density cue. */
export const DENSITY_THRESHOLD = 5;

export function countMediumOrHigher(pending: readonly PendingApproval[]): number {
  return pending.reduce((n, card) => (isMediumOrHigher(card.risk) ? n + 1 : n), 0);
}

export function needsDensityCue(pending: readonly PendingApproval[]): boolean {
  return countMediumOrHigher(pending) > DENSITY_THRESHOLD;
}

/**
 * Cards in `pending` that were not seen before. `seen` is null until the first queue arrives:
 * whatever is waiting when the cockpit opens is not "new" and must not raise notifications.
 */
export function newArrivals(seen: ReadonlySet<string> | null, pending: readonly PendingApproval[]): PendingApproval[] {
  if (seen === null) return [];
  return pending.filter((card) => !seen.has(card.id));
}
