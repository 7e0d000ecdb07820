import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import type { VerificationResult } from '../../../src-shared/silas/execution.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import type { AuditEventData, AuditEventName, AuditItem } from '../../../src-shared/audit/events.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { redactForAudit, redactText } from '../gates/audit-redact.js';

/**
 * Audit helpers of the executor. Tool arguments and outputs are agent- or world-controlled, so
 * they pass the PII/secret redactor and are clipped before they reach the ledger.
 */

export const clip = (text: string, max = 500): string => (text.length > max ? `${text.slice(0, max)}…` : text);

export function auditArgs(args: JsonObject): JsonValue {
  return redactForAudit(args);
}

export function auditText(text: string): string {
  return redactText(text);
}

/** Names, verdicts and clipped reasons of a verification run; outputs stay out of the ledger. */
export function verificationSummary(results: readonly VerificationResult[]): JsonObject[] {
  return results.slice(0, 100).map((r) => ({ name: clip(r.name, 200), passed: r.passed, reason: auditText(r.reason), exit_code: r.exit_code }));
}

/**
 * An AuditLog that remembers the ids of the entries written through it, so `silas run --json`
 * can list exactly the entries of its run (`audit_ids`) even when other processes write to the
 * same ledger. It writes through the wrapped log on the same connection, so the approval engine's
 * and the store's transactions still include their entries.
 */
export class RecordingAuditLog {
  private readonly recorded: string[] = [];

  constructor(private readonly log: Pick<AuditLog, 'append' | 'appendBatch'>) {}

  append<E extends AuditEventName>(event: E, data: AuditEventData<E>): AuditEntry {
    const entry = this.log.append(event, data);
    this.recorded.push(entry.id);
    return entry;
  }

  appendBatch(items: readonly AuditItem[]): AuditEntry[] {
    const entries = this.log.appendBatch(items);
    this.recorded.push(...entries.map((entry) => entry.id));
    return entries;
  }

  /**
   * Ids in write order. An entry written inside a transaction that later rolled back is listed
   * too (its id then names nothing in the chain); callers look ids up, they never assume them.
   */
  ids(): string[] {
    return [...this.recorded];
  }
}
