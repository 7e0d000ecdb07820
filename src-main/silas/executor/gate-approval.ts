import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { GateResult } from '../../../src-shared/silas/gates.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { PlanApprovals } from '../work/plan-approvals.js';
import { payloadHash } from '../../approval/signing.js';
import { clip } from './audit.js';
import type { ExecutorAuditSink, GateApprovalRequester } from './types.js';

export type ApprovalPort = Pick<PlanApprovals, 'verify' | 'check' | 'issueToken'>;

/**
 * A `require_approval` gate result pauses the action (§5.2.1 c2, d): the person is asked, the
 * answer is an owner-signed `single_step` token over the hash of exactly this action's payload,
 * and it is verified (consumed) before the action resumes. No requester, a decline, a timeout or
 * a token for anything else: the action stays blocked.
 */
export async function approvePausedAction(
  deps: { approvals: ApprovalPort; requester?: GateApprovalRequester; audit: ExecutorAuditSink },
  request: { kind: 'tool_call' | 'after_step'; item: WorkItem; payload: JsonObject; results: readonly GateResult[] },
  signal: AbortSignal,
): Promise<{ granted: true } | { granted: false; reason: string }> {
  const subject = { kind: 'gate_payload', id: request.item.id, hash: payloadHash(request.payload) };
  const gates = request.results.map((r) => r.gate_name);
  const record = (granted: boolean, reason: string) =>
    deps.audit.append('silas.executor.gate_approval', {
      work_item_id: request.item.id,
      kind: request.kind,
      payload_hash: subject.hash,
      gates,
      granted,
      reason: clip(reason),
    });
  if (!deps.requester) {
    const reason = `gate(s) ${gates.join(', ')} require approval and no approver is connected; the ${request.kind === 'tool_call' ? 'tool call' : 'step'} stays blocked`;
    record(false, reason);
    return { granted: false, reason };
  }
  let token;
  try {
    token = await deps.requester.request({ ...request, subject }, signal);
  } catch (error) {
    token = null;
    record(false, `approver failed: ${(error as Error).message}`);
  }
  if (token === null || token === undefined) {
    const reason = `approval for gate(s) ${gates.join(', ')} was declined or not given`;
    record(false, reason);
    return { granted: false, reason };
  }
  const verified = deps.approvals.verify(token, subject, { scope: 'single_step' });
  if (!verified.ok) {
    const reason = `the approval for gate(s) ${gates.join(', ')} was refused: ${verified.code}: ${verified.reason}`;
    record(false, reason);
    return { granted: false, reason };
  }
  record(true, 'approved and verified');
  return { granted: true };
}
