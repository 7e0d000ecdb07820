import type { AuditLog } from '../audit/audit-log.js';
import type { DecisionQueue } from './types.js';

/**
 * Pending human decisions. The MCP proxy and Silas issues add items; until then the queue
 * holds the pause switch, whose every change is a decision and therefore audited.
 */
export class InMemoryDecisionQueue implements DecisionQueue {
  private paused = false;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly audit: AuditLog) {}

  pendingCount(): number {
    return 0;
  }

  isPaused(): boolean {
    return this.paused;
  }

  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.audit.append(paused ? 'approvals.paused' : 'approvals.resumed', {});
    this.paused = paused;
    for (const listener of [...this.listeners]) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
