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

/** What every waiting request has, tool-call or plan approval: enough to order it and tell it apart. */
export interface QueuedRequest {
  id: string;
  requestedAt: string;
}

/** Request time order, 0 on a tie or an unreadable time. */
export function compareRequestedAt(a: QueuedRequest, b: QueuedRequest): number {
  const byTime = Date.parse(a.requestedAt) - Date.parse(b.requestedAt);
  return byTime !== 0 && Number.isFinite(byTime) ? byTime : 0;
}

export function compareIds(a: QueuedRequest, b: QueuedRequest): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Oldest request first; ties keep a stable order by id so the active card never flickers. */
export function sortOldestFirst<T extends QueuedRequest>(pending: readonly T[]): T[] {
  return [...pending].sort((a, b) => compareRequestedAt(a, b) || compareIds(a, b));
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

/** Counts any waiting request with a risk level: tool-call and plan approvals alike. */
export function countMediumOrHigher(pending: readonly { risk: Risk }[]): number {
  return pending.reduce((n, card) => (isMediumOrHigher(card.risk) ? n + 1 : n), 0);
}

export function needsDensityCue(pending: readonly { risk: Risk }[]): boolean {
  return countMediumOrHigher(pending) > DENSITY_THRESHOLD;
}

/**
 * Cards in `pending` that were not seen before. `seen` is null until the first queue arrives:
 * whatever is waiting when the cockpit opens is not "new" and must not raise notifications.
 */
export function newArrivals<T extends Pick<QueuedRequest, 'id'>>(seen: ReadonlySet<string> | null, pending: readonly T[]): T[] {
  if (seen === null) return [];
  return pending.filter((card) => !seen.has(card.id));
}
