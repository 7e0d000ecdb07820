import type { PlanApprovalRequest } from '../../../src-shared/schemas/plan-approval.js';
import type { AskOutcome } from '../../../src-shared/schemas/review.js';

export type { PlanApprovalRequest } from '../../../src-shared/schemas/plan-approval.js';
/** What the person answered about one plan (spec 002 §5.11: a token is minted only on approve), or why no one could be asked. */
export type PlanApprovalAnswer = AskOutcome;

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
