import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';

/** What the person answered about one plan (spec 002 §5.11: a token is minted only on approve). */
export type PlanApprovalAnswer =
  | { outcome: 'approve'; token: ApprovalToken }
  | { outcome: 'deny'; reason: string }
  | { outcome: 'timeout' }
  /** No one could be asked (the control center is not running, the keyring is locked…): never a hang. */
  | { outcome: 'unreachable'; reason: string };

export interface PlanApprovalRequest {
  item: WorkItem;
  /** `planHash(item)`, computed by the asker; the approver recomputes it and refuses a mismatch. */
  planHash: string;
  /** Where the plan came from (shown on the card), e.g. the plan file's absolute path. */
  source: string;
  timeoutMs: number;
}

/**
 * Who signs a plan: the cockpit's Review surface through the running control center
 * (`ControlSocketPlanApprover`), or the terminal with `silas run --approve-here`. Either way the
 * answer is an owner-signed `ApprovalToken` bound to the plan hash, which the executor still
 * verifies (consuming) before anything runs.
 */
export interface PlanApprover {
  request(request: PlanApprovalRequest, signal?: AbortSignal): Promise<PlanApprovalAnswer>;
  close?(): void;
}
