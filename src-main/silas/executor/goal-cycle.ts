import { randomBytes } from 'node:crypto';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { ApprovalReasonCode } from '../../../src-shared/silas/approval.js';
import type { VerificationReport } from '../../../src-shared/silas/execution.js';
import { WorkItem, WorkItemResult, mergeBudgetUsed, type WorkItemResultStatus } from '../../../src-shared/silas/work.js';
import { validateToken } from '../../approval/validate.js';
import { FAILED_CHECKS_PLACEHOLDER, spawnedTaskPolicyHash } from '../work/plan-subjects.js';
import { transitionRefusal } from '../store/work-item-store.js';
import { planHash, spawnPolicyHash } from '../work/hashes.js';
import { clip, verificationSummary } from './audit.js';
import type { ExecutorDeps } from './deps.js';
import { approveInteractively } from './interactive.js';
import { ExecutorPersistence } from './persistence.js';
import type { TaskRunner } from './task-runner.js';

/**
 * One cycle of a recurring goal (spec 002 §5.2.3), called by the scheduler: run the goal's checks;
 * healthy when they pass; otherwise spawn the fix task its spawn policy allows, authorise it by
 * consuming exactly one execution of the goal's standing approval (bound by the spawn-policy
 * hash), or fall back to asking the person, then run the task and re-check the goal.
 */

/** The failed checks as they replace `$failed_checks` in the goal's `failure_context` template. */
function describeFailedChecks(report: VerificationReport): string {
  return report.failed
    .map((check) => {
      const output = check.output.trim();
      return `- ${check.name}: ${check.reason}${output ? `\n  output: ${output.slice(0, 300)}` : ''}`;
    })
    .join('\n');
}

/**
 * The fix task of §5.2.3 step 4. It conforms to the goal's spawn policy exactly, as the approval
 * engine requires: its body is the template with every `$failed_checks` replaced by the same
 * text, and it carries the goal's skills, gates, checks and escalation, and nothing more.
 */
export function buildFixTask(goal: WorkItem, report: VerificationReport, id: string, now: Date): WorkItem {
  const template = goal.failure_context ?? '';
  return WorkItem.parse({
    id,
    type: 'task',
    title: clip(`Fix: ${goal.title}`, 490),
    parent: goal.id,
    spawned_by: goal.id,
    domain: goal.domain,
    agent: 'ephemeral',
    budget: goal.budget,
    body: template.split(FAILED_CHECKS_PLACEHOLDER).join(describeFailedChecks(report)),
    interaction_mode: goal.interaction_mode,
    verify: goal.verify,
    gates: goal.gates,
    skills: goal.skills,
    escalation: goal.escalation,
    on_stuck: goal.on_stuck,
    created_at: now.toISOString(),
  });
}

function spawnsFixTasks(goal: WorkItem): boolean {
  return goal.on_failure === 'spawn_task' || goal.escalation[goal.on_failure]?.action === 'spawn_task';
}

export class GoalCycleRunner {
  private readonly persistence: ExecutorPersistence;
  private readonly now: () => Date;

  constructor(
    private readonly deps: ExecutorDeps,
    private readonly tasks: TaskRunner,
  ) {
    this.persistence = new ExecutorPersistence(deps.store, deps.audit);
    this.now = deps.now ?? (() => new Date());
  }

  async run(goal: WorkItem): Promise<WorkItemResult> {
    const hash = planHash(goal);
    if (goal.agent !== 'ephemeral') return this.refuse(goal, `${goal.id} configures the Stream (agent: stream); the Stream loads it, the executor does not run it`);
    const approval = this.checkGoalApproval(goal, hash);
    if (!approval.ok) return this.refuse(goal, approval.reason);
    const stored = this.persistence.get(goal.id);
    const refusal = stored ? transitionRefusal('goal', stored.status, 'running') : null;
    if (refusal) return this.refuse(goal, `${goal.id} cannot start a cycle: ${refusal}`, false);
    const synced = this.persistence.sync(goal, goal.approval_token);
    if (!synced.ok) return this.refuse(goal, synced.reason, false);
    let current = synced.item;
    this.persistence.status(current, 'running', current.budget_used);

    const verifier = this.deps.verifierFor(this.deps.workDirFor(goal));
    const report = await verifier.runChecks(goal.verify);
    this.deps.audit.append('silas.executor.goal_checks', { work_item_id: goal.id, all_passed: report.all_passed, results: verificationSummary(report.results) });
    if (report.all_passed) return this.finish(current, 'healthy', 'all goal checks passed', report);
    if (!spawnsFixTasks(goal)) return this.finish(current, 'failed', `${report.failed.length} goal check(s) failed; on_failure is ${goal.on_failure}`, report);
    if (goal.failure_context === null) return this.finish(current, 'failed', 'checks failed but the goal has no failure_context to brief a fix task; add one', report);

    const taskId = this.fixTaskId(goal);
    let task: WorkItem;
    try {
      task = buildFixTask(goal, report, taskId, this.now());
    } catch (error) {
      return this.finish(current, 'failed', `could not build the fix task: ${clip((error as Error).message)}`, report);
    }
    const spawnedHash = planHash(task);
    this.deps.audit.append('silas.executor.goal_task_spawned', {
      work_item_id: goal.id,
      task_id: task.id,
      spawned_task_hash: spawnedHash,
      spawn_policy_hash: spawnPolicyHash(goal),
      conforms: spawnedTaskPolicyHash(goal, task) === spawnPolicyHash(goal),
    });
    const saved = this.persistence.sync(task, null);
    if (!saved.ok) return this.finish(current, 'failed', `could not store the fix task: ${saved.reason}`, report);

    // §5.2.3 step 4: one consuming verification of the standing approval per spawned task.
    let runnable: WorkItem | null = null;
    let underStanding = false;
    const token = goal.approval_token;
    if (token?.scope === 'standing') {
      const verified = this.deps.approvals.verify(token, goal, { spawned: task });
      if (verified.ok) {
        const attached = this.persistence.attach(task, verified.token);
        if (attached.ok) {
          runnable = attached.item;
          underStanding = true;
        }
      }
    }
    if (runnable === null) {
      const approved = await approveInteractively(this.deps, this.persistence, task, `goal ${goal.id}`);
      if (!approved.ok) {
        this.persistence.status(task, 'blocked', task.budget_used, { reason: approved.reason });
        return this.finish(current, 'failed', `fix task ${task.id} blocked: ${approved.reason}`, report);
      }
      runnable = approved.item;
    }

    const result = await this.tasks.run(runnable, underStanding ? { goal } : {});
    current = this.persistence.get(goal.id) ?? current;
    const budget = mergeBudgetUsed(current.budget_used, result.budget_used);
    if (result.status !== 'done') return this.finish(current, 'failed', `fix task ${task.id} ${result.status}: ${result.last_error ?? result.summary}`, report, budget);
    const recheck = await verifier.runChecks(goal.verify);
    this.deps.audit.append('silas.executor.goal_checks', { work_item_id: goal.id, after_fix_task: task.id, all_passed: recheck.all_passed, results: verificationSummary(recheck.results) });
    return recheck.all_passed
      ? this.finish(current, 'healthy', `fix task ${task.id} done; goal checks pass again`, recheck, budget)
      : this.finish(current, 'failed', `fix task ${task.id} done but ${recheck.failed.length} goal check(s) still fail`, recheck, budget);
  }

  /**
   * The goal's own approval, not consumed: a cycle runs the goal's check commands, so it needs
   * a valid owner signature over this exact goal (and, for a standing token, its unchanged spawn
   * policy), unexpired. Spawned tasks are authorised separately, one consumption each.
   */
  checkGoalApproval(goal: WorkItem, hash: string): { ok: true } | { ok: false; code: ApprovalReasonCode | 'E_APPROVAL_MISSING'; reason: string } {
    const token = goal.approval_token;
    const record = (ok: boolean, reason: string, code: string | null) =>
      this.deps.audit.append('silas.executor.goal_approval_checked', { work_item_id: goal.id, plan_hash: hash, ok, code, reason: clip(reason), token_id: token?.token_id ?? null });
    if (token === null) {
      record(false, 'no approval token', 'E_APPROVAL_MISSING');
      return { ok: false, code: 'E_APPROVAL_MISSING', reason: 'E_APPROVAL_MISSING: the goal has no approval token' };
    }
    const subject = { kind: 'plan', id: goal.id, hash, parent: goal.id, spawnPolicyHash: spawnPolicyHash(goal) };
    const scope = token.scope === 'standing' ? 'standing' : 'full_plan';
    const validated = validateToken(token, subject, 'check', { scope }, { trustedKeys: this.deps.approvalKeys(), now: this.now(), clockSkewMs: 60_000, allowConditional: false });
    if (!validated.ok) {
      record(false, validated.reason, validated.code);
      return { ok: false, code: validated.code, reason: `${validated.code}: ${validated.reason}` };
    }
    if (token.work_item_id !== goal.id || token.plan_hash !== hash) {
      const reason = `the approval is for ${token.work_item_id} plan ${token.plan_hash.slice(0, 12)}, not this goal (${hash.slice(0, 12)}); approve the goal as it is now`;
      record(false, reason, 'E_APPROVAL_PLAN_HASH');
      return { ok: false, code: 'E_APPROVAL_PLAN_HASH', reason: `E_APPROVAL_PLAN_HASH: ${reason}` };
    }
    record(true, 'Valid', null);
    return { ok: true };
  }

  private fixTaskId(goal: WorkItem): string {
    const suffix = this.deps.newId?.() ?? `${this.now().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`;
    return `${goal.id.slice(0, 150)}-fix-${suffix}`;
  }

  private refuse(goal: WorkItem, reason: string, persist = true): WorkItemResult {
    this.deps.audit.append('silas.executor.refused', { work_item_id: goal.id, plan_hash: planHash(goal), status: 'blocked', reason: clip(reason) });
    const result = WorkItemResult.parse({ work_item_id: goal.id, status: 'blocked', summary: `Goal cycle blocked: ${reason}`, last_error: reason, budget_used: goal.budget_used });
    if (persist) {
      const stored = this.persistence.get(goal.id);
      if (!stored) this.persistence.sync(goal, null);
      this.persistence.finish({ ...result, budget_used: this.persistence.get(goal.id)?.budget_used ?? goal.budget_used });
    }
    return result;
  }

  private finish(goal: WorkItem, status: WorkItemResultStatus, summary: string, report: VerificationReport, budget = goal.budget_used): WorkItemResult {
    const result = WorkItemResult.parse({
      work_item_id: goal.id,
      status,
      summary: `Goal ${status}: ${summary}`,
      last_error: status === 'healthy' ? null : summary,
      verification_results: report.results as JsonObject[],
      budget_used: budget,
    });
    this.deps.audit.append('silas.executor.finished', { work_item_id: goal.id, status, last_error: result.last_error === null ? null : clip(result.last_error) });
    this.persistence.finish(result, report.results as JsonObject[]);
    return result;
  }
}
