import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import type { BehaviorSignal } from './behavior-preferences.js';

/*
 * The behaviour signals of spec 002 §6.6 item 1 that exist today, read from the audit chain (each
 * entry is in the keyed chain, so a database writer cannot invent a pattern): the owner's approvals
 * and declines of MCP tool calls in Review, and of Silas plans. Undo and suggestion outcomes join
 * when those features record them.
 */
export function approvalSignals(entries: readonly AuditEntry[]): BehaviorSignal[] {
  const signals: BehaviorSignal[] = [];
  for (const entry of entries) {
    const data = entry.data as Record<string, unknown>;
    if ((entry.event === 'approvals.approved' || entry.event === 'approvals.denied') && typeof data.server === 'string' && typeof data.tool === 'string') {
      signals.push({
        subject: `approval/${data.server}/${data.tool}`,
        label: `${data.tool} calls of the ${data.server} server`,
        outcome: entry.event === 'approvals.approved' ? 'approved' : 'declined',
      });
    }
  }
  return signals;
}
