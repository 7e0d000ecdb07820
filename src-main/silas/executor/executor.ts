import { parseApprovalToken, type ApprovalReasonCode } from '../../../src-shared/silas/approval.js';
import { planHash } from '../work/hashes.js';
import { planIdConflict, planIdRefusal } from '../store/plan-ids.js';
import { WorkItem, type WorkItemResult, type WorkItemStatus } from '../../../src-shared/silas/work.js';
import { BatchRunner, type BatchOutcome, type BatchRunRequest } from './batch.js';
import { clip } from './audit.js';
import type { ExecutorDeps } from './deps.js';
import { GoalCycleRunner } from './goal-cycle.js';
import { ExecutorPersistence } from './persistence.js';
import { ProjectRunner } from './project.js';
import { TaskRunner } from './task-runner.js';

export type AuthorizeResult = { ok: true; item: WorkItem } | { ok: false; code: ApprovalReasonCode | 'E_APPROVAL_MISSING' | 'E_WORK_ITEM_STORE' | 'E_PLAN_ID_TAKEN'; reason: string };

/**
 * The WorkItemExecutor of spec 002 §4.12 / §5.2: one `execute` for tasks, projects and goal
 * cycles. Authorisation and execution are separate, as in the spec: `authorize` is the consuming
 * verification at the point where the person approved (§5.1.2 step 6), `execute` begins with the
 * non-consuming check (§5.2.1 step 0) and never runs anything without it.
 */
const REQUEUED_BY_APPROVAL: ReadonlySet<WorkItemStatus> = new Set(['stuck', 'failed', 'blocked', 'paused']);

export class WorkItemExecutor {
  private readonly tasks: TaskRunner;
  private readonly projects: ProjectRunner;
  private readonly goals: GoalCycleRunner;
  private readonly batches: BatchRunner;
  private readonly persistence: ExecutorPersistence;

  constructor(private readonly deps: ExecutorDeps) {
    this.tasks = new TaskRunner(deps);
    this.projects = new ProjectRunner(deps, this.tasks);
    this.goals = new GoalCycleRunner(deps, this.tasks);
    this.batches = new BatchRunner(deps);
    this.persistence = new ExecutorPersistence(deps.store, deps.audit);
  }

  /**
   * §5.1.2 steps 6–8: verifies `token` against the exact plan of `item`, consuming one execution
   * under the engine's UNIQUE consumption key, then stores the item with the verified token. A
   * replayed, forged, expired or mismatched token is refused (and audited by the engine).
   */
  authorize(itemInput: WorkItem, token: unknown): AuthorizeResult {
    const item = WorkItem.parse(itemInput);
    // Every path asked this before offering the card (silas/store/plan-ids.ts); asked again here,
    // before the token is consumed, for a plan whose id was taken while it waited.
    const taken = planIdConflict(item, { stored: (id) => this.persistence.get(id) });
    if (taken) return { ok: false, code: 'E_PLAN_ID_TAKEN', reason: planIdRefusal(taken) };
    if (item.type === 'goal') return this.authorizeGoal(item, token);
    const verified = this.deps.approvals.verify(token, item);
    if (!verified.ok) return { ok: false, code: verified.code, reason: verified.reason };
    const stored = this.persistence.sync(item, verified.token);
    if (!stored.ok) return { ok: false, code: 'E_WORK_ITEM_STORE', reason: stored.reason };
    // A new approval re-queues an item that ended stuck, failed, blocked or paused: the person
    // approved this plan again, so it may run again (its history stays in budget_used).
    if (REQUEUED_BY_APPROVAL.has(stored.item.status)) {
      const requeued = this.persistence.status(stored.item, 'pending', stored.item.budget_used, { reason: `a new approval (token ${verified.token.token_id.slice(0, 12)}) re-queues it` });
      if (!requeued.ok) return { ok: false, code: 'E_WORK_ITEM_STORE', reason: requeued.reason };
    }
    return { ok: true, item: { ...item, approval_token: verified.token } };
  }

  /**
   * A goal's approval is not consumed when it is granted: a standing token is spent one execution
   * per spawned fix task (§5.2.3). It is checked (signature, this exact goal, expiry) and stored.
   */
  private authorizeGoal(goal: WorkItem, token: unknown): AuthorizeResult {
    const parsed = parseApprovalToken(token);
    if (!parsed.ok) return { ok: false, code: 'E_APPROVAL_MALFORMED', reason: parsed.error };
    const withToken = { ...goal, approval_token: parsed.token };
    const checked = this.goals.checkGoalApproval(withToken, planHash(goal));
    if (!checked.ok) return { ok: false, code: checked.code, reason: checked.reason };
    const stored = this.persistence.sync(goal, parsed.token);
    if (!stored.ok) return { ok: false, code: 'E_WORK_ITEM_STORE', reason: stored.reason };
    return { ok: true, item: withToken };
  }

  /** §4.12 execute: a task runs its loop, a project its tasks in order, a goal one cycle. */
  async execute(itemInput: WorkItem, options: { signal?: AbortSignal } = {}): Promise<WorkItemResult> {
    const item = WorkItem.parse(itemInput);
    this.deps.audit.append('silas.executor.execute_requested', { work_item_id: item.id, type: item.type, token_id: item.approval_token?.token_id ?? null });
    switch (item.type) {
      case 'task':
        return this.runTask(item, options.signal);
      case 'project':
        return this.projects.run(item);
      case 'goal':
        return this.goals.run(item);
    }
  }

  /** §5.2.4: reviewed batch execution of a goal's domain action. */
  executeBatches(request: BatchRunRequest): Promise<BatchOutcome[]> {
    return this.batches.run(request);
  }

  /** A task spawned under a standing approval is checked against its goal's spawn policy. */
  private async runTask(item: WorkItem, signal?: AbortSignal): Promise<WorkItemResult> {
    const token = item.approval_token;
    if (token?.scope === 'standing' && item.parent !== null) {
      const goal = this.persistence.get(item.parent);
      if (goal) return this.tasks.run(item, { goal, signal });
      this.deps.audit.append('silas.executor.goal_missing', { work_item_id: item.id, parent: clip(item.parent, 200) });
    }
    return this.tasks.run(item, { signal });
  }
}
