import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../src-shared/schemas/json.js';
import type { AuditEventData } from '../../src-shared/audit/events.js';
import type { DlpEngine } from './dlp/engine.js';
import type { EvaluationInput, PolicyDecision } from './evaluate/evaluator.js';
import type { AgentPolicy } from './policy/types.js';

export const AIP_DECISION_EVENT = 'aip.decision' as const;
/** Arguments larger than this are recorded by digest only: the ledger is not a file store. */
export const MAX_AUDITED_ARGS_BYTES = 64 * 1024;

export interface AipAuditContext {
  policy: AgentPolicy | null;
  dlp: DlpEngine | null;
  /** upstream = client → server (AIP §8.1). */
  direction: 'upstream' | 'downstream';
  sessionId?: string;
}

function auditedArgs(args: unknown, dlp: DlpEngine | null): JsonValue | undefined {
  if (args === undefined) return undefined;
  const redacted = dlp ? dlp.redactForAudit(args).value : args;
  const json = JSON.stringify(redacted) as string | undefined;
  const text = json ?? 'null';
  const bytes = Buffer.byteLength(text);
  // No parse back: the audit append normalises (and copies) the data it is given.
  if (bytes <= MAX_AUDITED_ARGS_BYTES) return json === undefined ? null : (redacted as JsonValue);
  return { truncated: true, bytes, sha256: createHash('sha256').update(text).digest('hex') };
}

/**
 * One decision as an audit-chain entry in the AIP §8 shape (required: direction, decision,
 * policy_mode, violation; optional: method, tool, args, failed_arg, failed_rule, session_id,
 * policy_hash), arguments DLP-redacted with every pattern before they are written.
 */
export function aipDecisionData(decision: PolicyDecision, input: EvaluationInput, context: AipAuditContext): AuditEventData<typeof AIP_DECISION_EVENT> & JsonObject {
  const entry: Record<string, JsonValue | undefined> = {
    direction: context.direction,
    method: input.method,
    tool: input.tool,
    args: auditedArgs(input.args, context.dlp),
    decision: decision.monitored ? 'ALLOW_MONITOR' : decision.decision,
    policy_mode: context.policy?.mode ?? 'enforce',
    violation: decision.violation,
    failed_arg: decision.failedArg ?? undefined,
    failed_rule: decision.failedRule ?? undefined,
    error_code: decision.errorCode ?? undefined,
    reason: decision.reason,
    session_id: context.sessionId,
    policy_name: context.policy?.name,
    policy_hash: context.policy?.hash,
    request_id: input.requestId ?? undefined,
  };
  for (const key of Object.keys(entry)) if (entry[key] === undefined) delete entry[key];
  return entry as AuditEventData<typeof AIP_DECISION_EVENT> & JsonObject;
}
