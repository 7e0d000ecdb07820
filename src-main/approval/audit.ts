import type { JsonObject } from '../../src-shared/schemas/json.js';
import type { ApprovalReasonCode } from '../../src-shared/silas/approval.js';
import type { AuditAppender, AuditEventData } from '../../src-shared/audit/events.js';

/** Where approval decisions are recorded; `AuditLog` satisfies it. */
export type ApprovalAuditSink = AuditAppender;

/**
 * A refused token may be anything an attacker sent, so only short string fields are copied, and
 * never the signature: the entry says which token and why, not how to retry.
 */
export function refusalAuditData(
  op: 'verify' | 'check',
  tokenInput: unknown,
  subject: { id: unknown; hash: unknown },
  code: ApprovalReasonCode,
  reason: string,
): AuditEventData<'silas.approval.refused'> {
  const token = typeof tokenInput === 'object' && tokenInput !== null ? (tokenInput as Record<string, unknown>) : {};
  const data: AuditEventData<'silas.approval.refused'> & JsonObject = { op, code, reason: reason.slice(0, 500) };
  for (const field of ['token_id', 'work_item_id', 'plan_hash', 'scope', 'key_fingerprint'] as const) {
    const value = token[field];
    if (typeof value === 'string') data[field] = value.slice(0, 200);
  }
  if (typeof subject.id === 'string') data.subject_id = subject.id.slice(0, 200);
  if (typeof subject.hash === 'string') data.subject_plan_hash = subject.hash.slice(0, 64);
  return data;
}
