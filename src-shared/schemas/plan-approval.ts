import { z } from 'zod';
import { Sha256Hex } from '../silas/approval.js';
import { WorkItem } from '../silas/work.js';

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

