import { z } from 'zod';
import { ApprovalToken, Sha256Hex } from '../silas/approval.js';
import { Budget, WorkItem, WorkItemType } from '../silas/work.js';
import { RiskLevel } from './approval.js';

/**
 * Plan approvals (spec 002 §5.11, §0.5.3): `silas run` (or, later, the Stream) asks the person to
 * approve one exact plan; approving mints an owner-signed ApprovalToken bound to its plan hash.
 */
export const PlanApprovalRequest = z
  .object({
    item: WorkItem,
    /** `planHash(item)` as the asker computed it; the runtime recomputes it and refuses a mismatch. */
    planHash: Sha256Hex,
    /** Where the plan came from, shown on the card (the plan file's absolute path). */
    source: z.string().min(1).max(4096),
    timeoutMs: z.number().int().min(1000).max(3_600_000),
  })
  .strict();
export type PlanApprovalRequest = z.infer<typeof PlanApprovalRequest>;

export const PlanApprovalAnswer = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('approve'), token: ApprovalToken }),
  z.object({ outcome: z.literal('deny'), reason: z.string() }),
  z.object({ outcome: z.literal('timeout') }),
]);
export type PlanApprovalAnswer = z.infer<typeof PlanApprovalAnswer>;

/** One verification check as the card shows it: the person sees what will decide success. */
export const PlanCheckView = z.object({ name: z.string(), run: z.string(), network: z.boolean() });

/** A pending plan approval card (§0.5.3: intent, risk, rationale, consequences, details). */
export const PendingPlanApproval = z.object({
  id: z.string(),
  workItemId: z.string(),
  type: WorkItemType,
  title: z.string(),
  /** Full hash; the card shows the first 8 characters, as `silas run --approve-here` asks for them. */
  planHash: Sha256Hex,
  source: z.string(),
  risk: RiskLevel,
  /** Why the risk level is what it is, one reason each (the terminal card shows the same). */
  riskReasons: z.array(z.string()),
  /** What the plan is for, in its own words: the first sentences of its briefing. */
  rationale: z.string(),
  /** The plan's briefing (markdown, shown as text). */
  body: z.string(),
  budget: Budget,
  verify: z.array(PlanCheckView),
  skills: z.array(z.string()),
  gates: z.number().int().nonnegative(),
  requestedAt: z.string(),
  expiresAt: z.string(),
});
export type PendingPlanApproval = z.infer<typeof PendingPlanApproval>;

export const PlanDecisionChoice = z.enum(['approve', 'deny']);
export type PlanDecisionChoice = z.infer<typeof PlanDecisionChoice>;
