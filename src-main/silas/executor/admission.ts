import { WorkItemResult, type WorkItem, type WorkItemResultStatus } from '../../../src-shared/silas/work.js';
import { NonceReplayError } from '../../store/repositories/nonce-store.js';
import { transitionRefusal } from '../store/work-item-store.js';
import { fileExistsOutside } from '../verify/file-confinement.js';
import { planHash } from '../work/hashes.js';
import { clip } from './audit.js';
import { RUN_NONCE_DOMAIN, type ExecutorDeps } from './deps.js';
import { ExecutorPersistence } from './persistence.js';

/**
 * Entry to execution (spec 002 §5.2.1 step 0), shared by tasks and projects:
 * 1. the approval `check` (non-consuming; the consuming `verify` happened where it was granted);
 * 2. the store's lifecycle must allow the item to run (a done item never runs again);
 * 3. the item is stored with its token, and the caller's preflight runs (nothing executed yet);
 * 4. one execution is claimed for (approval, plan hash) in the nonce store, because `check`
 *    consumes nothing: without the claim, one approval could start any number of executions.
 */

export type Admitted = { ok: true; item: WorkItem; hash: string };
export type Refused = { ok: false; result: WorkItemResult };

export interface AdmitOptions {
  /** For a goal-spawned task under a standing approval: the goal, to re-check its spawn policy. */
  goal?: WorkItem;
  /** Checks that need the stored item, before the claim; returns why it cannot run, or null. */
  preflight?: (stored: WorkItem) => { status: WorkItemResultStatus; reason: string } | null;
}

export class Admission {
  readonly persistence: ExecutorPersistence;

  constructor(private readonly deps: ExecutorDeps) {
    this.persistence = new ExecutorPersistence(deps.store, deps.audit);
  }

  admit(item: WorkItem, options: AdmitOptions = {}): Admitted | Refused {
    const hash = planHash(item);
    const token = item.approval_token;
    if (token === null) return this.refuseApproval(item, hash, 'E_APPROVAL_MISSING', 'the work item has no approval token; needs_approval: false does not waive it');
    const checked = this.deps.approvals.check(token, item, options.goal ? { goal: options.goal } : {});
    if (!checked.ok) return this.refuseApproval(item, hash, checked.code, checked.reason);

    // A check that could only look outside the work directory is refused before anything runs.
    const workDir = this.deps.workDirFor(item);
    const outside = fileExistsOutside(item.verify, workDir, [workDir]);
    if (outside) return this.refuse(item, hash, 'blocked', `${outside.field}: ${outside.reason}`, { persist: false });

    const before = this.persistence.get(item.id);
    const refusal = before ? transitionRefusal(before.type, before.status, 'running') : null;
    if (refusal) return this.refuse(item, hash, 'blocked', `${item.id} cannot run again: ${refusal}`, { persist: false });
    const synced = this.persistence.sync(item, token);
    if (!synced.ok) return this.refuse(item, hash, 'blocked', `the work item store refused the item: ${synced.reason}`, { persist: false });
    const stored = synced.item;
    const preflight = options.preflight?.(stored) ?? null;
    if (preflight) return this.refuse(stored, hash, preflight.status, preflight.reason);

    try {
      this.deps.nonces.record(RUN_NONCE_DOMAIN, `${token.token_id}:${hash}`);
    } catch (error) {
      if (!(error instanceof NonceReplayError)) throw error;
      return this.refuse(stored, hash, 'blocked', `E_APPROVAL_REPLAY: approval ${token.token_id.slice(0, 12)} already started an execution of this plan; a new run needs a new approval`);
    }
    this.deps.audit.append('silas.executor.started', { work_item_id: item.id, type: item.type, plan_hash: hash, token_id: token.token_id, scope: token.scope, parent: item.parent });
    return { ok: true, item: stored, hash };
  }

  /** Step 0 refused: the spec's `execution_blocked_no_approval`; the refused token is not stored. */
  private refuseApproval(item: WorkItem, hash: string, code: string, reason: string): Refused {
    this.deps.audit.append('silas.executor.execution_blocked_no_approval', { work_item_id: item.id, plan_hash: hash, code, reason: clip(reason) });
    return this.refuse(item, hash, 'blocked', `${code}: ${reason}`, { audited: true, stripToken: true });
  }

  /**
   * Nothing ran. The item is recorded with `status` unless the store's lifecycle forbids it
   * (`persist: false`, e.g. a done item, which stays as it is).
   */
  refuse(item: WorkItem, hash: string, status: WorkItemResultStatus, reason: string, how: { audited?: boolean; stripToken?: boolean; persist?: boolean } = {}): Refused {
    if (!how.audited) this.deps.audit.append('silas.executor.refused', { work_item_id: item.id, plan_hash: hash, status, reason: clip(reason) });
    const persist = how.persist ?? true;
    if (persist) {
      const stored = this.persistence.get(item.id);
      if (!stored || (how.stripToken && stored.approval_token !== null)) this.persistence.sync(item, null);
    }
    const base = persist ? this.persistence.get(item.id) : null;
    const result = WorkItemResult.parse({
      work_item_id: item.id,
      status,
      summary: `${status === 'blocked' ? 'Blocked' : 'Refused'} before execution: ${reason}`,
      last_error: reason,
      budget_used: base?.budget_used ?? item.budget_used,
    });
    if (persist) this.persistence.finish(result);
    return { ok: false, result };
  }
}
