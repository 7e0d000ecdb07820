import type { JsonValue } from '../schemas/json.js';

/*
 * The one reader of `aip.decision` entries (their fields are declared in events-runtime.ts). The
 * ledger checks data against the catalogue only when it is appended, and older proxies wrote fewer
 * fields, so every field is read by its type here and a field that is absent, or not of its type,
 * reads as null: readers switch on typed values instead of casting `data.x as string`.
 */

/** How the person's answer to an ASK ended (the proxy's `approval` field). */
export const AIP_APPROVALS = ['approve', 'deny', 'timeout', 'unreachable', 'standing', 'cancelled'] as const;

export interface AipDecisionRecord {
  direction: 'upstream' | 'downstream' | null;
  /** As recorded: ALLOW, ALLOW_MONITOR, BLOCK, ASK, RATE_LIMITED. */
  decision: string | null;
  policyMode: string | null;
  violation: boolean;
  method: string | null;
  tool: string | null;
  /** As stored (DLP-redacted, or a digest when too large); undefined when the entry has none. */
  args: JsonValue | undefined;
  reason: string | null;
  errorCode: number | null;
  failedArg: string | null;
  failedRule: string | null;
  policyName: string | null;
  policyHash: string | null;
  requestId: string | number | null;
  /** What a proxy adds: its server, proxy session and agent client. */
  server: string | null;
  sessionId: string | null;
  client: string | null;
  /**
   * The answer to an ASK, on the entry that ends it (one of `AIP_APPROVALS` as written today;
   * read as recorded, so a reader can treat a value it does not know as it must); null on the
   * ASK itself and on plain decisions.
   */
  approval: string | null;
  /** The consumed approval's nonce, or the standing approval's id, when one allowed the call. */
  approvalNonce: string | null;
  standingId: string | null;
  /** Fingerprint of the owner key that signed the approval. */
  approvalKey: string | null;
  /** Why the proxy refused the approval it was given (the call did not run). */
  approvalRejected: string | null;
  /** Why the agent stopped waiting, on an ask it withdrew (docs/mcp-proxy.md "Asks follow the agent"). */
  withdrawn: string | null;
  /** The arguments forwarded were DLP-redacted. */
  dlpRedacted: boolean;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The decision an `aip.decision` entry records, or null for any other entry. */
export function readAipDecision(entry: { event: string; data: Readonly<Record<string, unknown>> }): AipDecisionRecord | null {
  if (entry.event !== 'aip.decision') return null;
  const d = entry.data;
  const id = d.request_id;
  return {
    direction: d.direction === 'upstream' || d.direction === 'downstream' ? d.direction : null,
    decision: text(d.decision),
    policyMode: text(d.policy_mode),
    violation: d.violation === true,
    method: text(d.method),
    tool: text(d.tool),
    args: d.args as JsonValue | undefined,
    reason: text(d.reason),
    errorCode: typeof d.error_code === 'number' ? d.error_code : null,
    failedArg: text(d.failed_arg),
    failedRule: text(d.failed_rule),
    policyName: text(d.policy_name),
    policyHash: text(d.policy_hash),
    requestId: typeof id === 'string' || typeof id === 'number' ? id : null,
    server: text(d.server),
    sessionId: text(d.session_id),
    client: text(d.client),
    approval: text(d.approval),
    approvalNonce: text(d.approval_nonce),
    standingId: text(d.standing_id),
    approvalKey: text(d.approval_key),
    approvalRejected: text(d.approval_rejected),
    withdrawn: text(d.withdrawn),
    dlpRedacted: d.dlp === 'redacted',
  };
}

/** A proxy's decision on a `tools/call` from its client: the calls an agent made. */
export function isUpstreamToolCall(record: AipDecisionRecord): record is AipDecisionRecord & { tool: string } {
  return record.direction === 'upstream' && record.method === 'tools/call' && record.tool !== null;
}
