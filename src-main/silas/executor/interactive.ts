import type { WorkItem } from '../../../src-shared/silas/work.js';
import { planHash } from '../work/hashes.js';
import { clip } from './audit.js';
import { DEFAULT_LIMITS, type ExecutorDeps } from './deps.js';
import type { ExecutorPersistence } from './persistence.js';

/**
 * Interactive approval of one task (spec 002 §5.2.3 step 4, fallback): the person is asked
 * through the injected PlanApprover (the cockpit's Review surface), the signed single-use token
 * it returns is verified (consuming) against the task's exact plan, then attached to the task.
 * A deny, timeout, unreachable approver or a token for anything else leaves the task unapproved.
 */
export async function approveInteractively(
  deps: Pick<ExecutorDeps, 'planApprover' | 'approvals' | 'audit' | 'limits'>,
  persistence: ExecutorPersistence,
  task: WorkItem,
  source: string,
): Promise<{ ok: true; item: WorkItem } | { ok: false; reason: string }> {
  const hash = planHash(task);
  const record = (outcome: string, reason: string) =>
    deps.audit.append('silas.executor.interactive_approval', { work_item_id: task.id, plan_hash: hash, source: clip(source, 200), outcome, reason: clip(reason) });
  if (!deps.planApprover) {
    const reason = `no valid approval for ${task.id} and no approver is connected to ask`;
    record('unavailable', reason);
    return { ok: false, reason };
  }
  const timeoutMs = deps.limits?.approvalTimeoutMs ?? DEFAULT_LIMITS.approvalTimeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  let answer;
  try {
    answer = await deps.planApprover.request({ item: task, planHash: hash, source, timeoutMs }, signal);
  } catch (error) {
    answer = { outcome: 'unreachable' as const, reason: (error as Error).message };
  }
  if (answer.outcome !== 'approve') {
    const reason = answer.outcome === 'timeout' ? `no answer within ${Math.round(timeoutMs / 1000)}s` : answer.reason;
    record(answer.outcome, reason);
    return { ok: false, reason: `approval of ${task.id} ${answer.outcome === 'deny' ? 'denied' : answer.outcome}: ${reason}` };
  }
  // §5.2.3: the fresh token MUST be verified before it is attached.
  const verified = deps.approvals.verify(answer.token, task);
  if (!verified.ok) {
    record('refused', `${verified.code}: ${verified.reason}`);
    return { ok: false, reason: `the approval returned for ${task.id} was refused: ${verified.code}: ${verified.reason}` };
  }
  const attached = persistence.attach(task, verified.token);
  if (!attached.ok) {
    record('refused', attached.reason);
    return { ok: false, reason: attached.reason };
  }
  record('approved', 'verified and attached');
  return { ok: true, item: attached.item };
}
