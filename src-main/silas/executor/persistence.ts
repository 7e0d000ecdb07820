import { isSilasError } from '../../../src-shared/errors.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import { emptyBudgetUsed, type BudgetUsed, type WorkItem, type WorkItemResult, type WorkItemStatus } from '../../../src-shared/silas/work.js';
import { WorkItemStoreErrorCode, type WorkItemStore } from '../store/work-item-store.js';
import { clip } from './audit.js';
import type { ExecutorAuditSink } from './types.js';

/**
 * How the executor keeps the work item store (§4.13) in step. The store audits every state change
 * in the transaction that makes it, so the executor does not log status changes a second time;
 * it logs only when the store refuses one (its lifecycle rules, e.g. `done` is final).
 */

export type Persisted = { ok: true; item: WorkItem } | { ok: false; reason: string };

function refusal(error: unknown): string | null {
  if (isSilasError(error) && (error.code === WorkItemStoreErrorCode.Transition || error.code === WorkItemStoreErrorCode.Invalid)) return error.message;
  return null;
}

export class ExecutorPersistence {
  constructor(
    private readonly store: WorkItemStore,
    private readonly audit: ExecutorAuditSink,
  ) {}

  get(id: string): WorkItem | null {
    return this.store.get(id);
  }

  result(id: string): WorkItemResult | null {
    return this.store.getResult(id);
  }

  /**
   * Stores `item` (the plan as given) with `token` attached, keeping the runtime state the store
   * already holds for it. A new item starts as pending. A token that does not address the plan is
   * never stored: the store refuses it, and the caller has already refused to run.
   */
  sync(item: WorkItem, token: ApprovalToken | null): Persisted {
    const stored = this.store.get(item.id);
    const next: WorkItem = stored
      ? {
          ...item,
          status: stored.status,
          attempts: stored.attempts,
          budget_used: stored.budget_used,
          verification_results: stored.verification_results,
          created_at: stored.created_at,
          approval_token: token,
        }
      : { ...item, status: 'pending', attempts: 0, budget_used: emptyBudgetUsed(), verification_results: [], approval_token: token };
    return this.attempt(item.id, 'save', () => this.store.save(next));
  }

  status(item: WorkItem, status: WorkItemStatus, budget: BudgetUsed, update: { attempts?: number; verificationResults?: readonly JsonObject[]; reason?: string } = {}): Persisted {
    return this.attempt(item.id, status, () =>
      this.store.updateStatus(item.id, status, budget, { ...update, reason: update.reason === undefined ? undefined : clip(update.reason) }),
    );
  }

  finish(result: WorkItemResult, verificationRun?: readonly JsonObject[]): Persisted {
    return this.attempt(result.work_item_id, result.status, () => this.store.recordResult(result, verificationRun));
  }

  attach(item: WorkItem, token: ApprovalToken): Persisted {
    return this.attempt(item.id, 'attach_token', () => this.store.attachApprovalToken(item.id, token));
  }

  private attempt(id: string, change: string, write: () => WorkItem): Persisted {
    try {
      return { ok: true, item: write() };
    } catch (error) {
      const reason = refusal(error);
      if (reason === null) throw error;
      this.audit.append('silas.executor.persist_refused', { work_item_id: id, change, reason: clip(reason) });
      return { ok: false, reason };
    }
  }
}
