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
  /** The governed MCP server's name, for a proxy's entries. */
  server?: string;
  /** The agent client that started the proxy (`silas proxy --client`), when it said. */
  client?: string | null;
}

function auditedArgs(args: unknown, dlp: DlpEngine | null): JsonValue | undefined {
  if (args === undefined) return undefined;
  const redacted = dlp ? dlp.redactForAudit(args).value : args;
  const json = JSON.stringify(redacted) as string | undefined;
  if (json === undefined) return null;
  // No parse back: the audit append normalises (and copies) the data it is given. A UTF-16 unit
  // is at most 3 UTF-8 bytes, so small arguments are within the limit without counting.
  if (json.length * 3 <= MAX_AUDITED_ARGS_BYTES) return redacted as JsonValue;
  const bytes = Buffer.byteLength(json);
  if (bytes <= MAX_AUDITED_ARGS_BYTES) return redacted as JsonValue;
  return { truncated: true, bytes, sha256: createHash('sha256').update(json).digest('hex') };
}

/**
 * One decision as an audit-chain entry in the AIP §8 shape (required: direction, decision,
 * policy_mode, violation; optional: method, tool, args, failed_arg, failed_rule, session_id,
 * policy_hash), arguments DLP-redacted with every pattern before they are written.
 */
export function aipDecisionData(decision: PolicyDecision, input: EvaluationInput, context: AipAuditContext): AuditEventData<typeof AIP_DECISION_EVENT> & JsonObject {
  // Absent fields are never set rather than deleted afterwards: `delete` turns the object into a
  // slow dictionary that every later walk (the ledger's copy, its schema check) pays for. Fields
  // are set in RFC 8785 key order (UTF-16 code units), so the ledger's canonical copy finds them in
  // order and need not sort them (audit/chain.ts, `keysInOrder`): paid on every call the proxy
  // audits.
  const entry: Record<string, JsonValue> = {};
  const args = auditedArgs(input.args, context.dlp);
  if (args !== undefined) entry.args = args;
  if (context.client != null) entry.client = context.client;
  entry.decision = decision.monitored ? 'ALLOW_MONITOR' : decision.decision;
  entry.direction = context.direction;
  if (decision.errorCode != null) entry.error_code = decision.errorCode;
  if (decision.failedArg != null) entry.failed_arg = decision.failedArg;
  if (decision.failedRule != null) entry.failed_rule = decision.failedRule;
  entry.method = input.method;
  if (context.policy) entry.policy_hash = context.policy.hash;
  entry.policy_mode = context.policy?.mode ?? 'enforce';
  if (context.policy) entry.policy_name = context.policy.name;
  entry.reason = decision.reason;
  if (input.requestId != null) entry.request_id = input.requestId;
  if (context.server !== undefined) entry.server = context.server;
  if (context.sessionId !== undefined) entry.session_id = context.sessionId;
  if (input.tool !== undefined) entry.tool = input.tool;
  entry.violation = decision.violation;
  return entry as AuditEventData<typeof AIP_DECISION_EVENT> & JsonObject;
}
