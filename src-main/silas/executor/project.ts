import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { VerificationReport } from '../../../src-shared/silas/execution.js';
import { WorkItemResult, emptyBudgetUsed, mergeBudgetUsed, type BudgetUsed, type WorkItem, type WorkItemResultStatus } from '../../../src-shared/silas/work.js';
import { Admission } from './admission.js';
import { clip, verificationSummary } from './audit.js';
import { BudgetTracker } from './budget.js';
import type { ExecutorDeps } from './deps.js';
import { approveInteractively } from './interactive.js';
import { dependentsOf, projectOrder } from './project-order.js';
import type { TaskRunner } from './task-runner.js';

/**
 * Project execution of spec 002 §5.2.2: the project's own approval is checked, its tasks run in
 * dependency order through the task loop (each under its own approval: the project's plan hash
 * covers only the task ids, not the tasks' content), a task that does not finish stops the
 * project and blocks its dependents, and project-level checks run after the last task.
 */

/** What a task run added to the task's stored consumption (never negative). */
function consumedBy(after: BudgetUsed, before: BudgetUsed): BudgetUsed {
  const delta = (key: keyof BudgetUsed) => Math.max(0, after[key] - before[key]);
  return {
    tokens: delta('tokens'),
    cost_usd: delta('cost_usd'),
    wall_time_seconds: delta('wall_time_seconds'),
    attempts: delta('attempts'),
    planner_calls: delta('planner_calls'),
    executor_runs: delta('executor_runs'),
  };
}

export class ProjectRunner {
  private readonly admission: Admission;

  constructor(
    private readonly deps: ExecutorDeps,
    private readonly tasks: TaskRunner,
  ) {
    this.admission = new Admission(deps);
  }

  async run(project: WorkItem): Promise<WorkItemResult> {
    const persistence = this.admission.persistence;
    let order: string[] = [];
    let external: string[] = [];
    const admitted = this.admission.admit(project, {
      preflight: () => {
        for (const [index, id] of project.tasks.entries()) {
          const task = persistence.get(id);
          if (!task) return { status: 'failed', reason: `tasks.${index}: task ${id} is not in the work item store; save its plan before running the project` };
          if (task.type !== 'task') return { status: 'failed', reason: `tasks.${index}: ${id} is a ${task.type}; a project runs tasks` };
          if (task.parent !== project.id) return { status: 'failed', reason: `tasks.${index}: task ${id} has parent ${task.parent ?? 'none'}, not ${project.id}` };
        }
        const sorted = projectOrder(project.tasks, (id) => persistence.get(id)?.depends_on ?? []);
        if (!sorted.ok) return { status: 'failed', reason: `${sorted.field}: ${sorted.reason}` };
        order = sorted.order;
        external = sorted.external;
        return null;
      },
    });
    if (!admitted.ok) return admitted.result;
    const item = admitted.item;
    const budget = new BudgetTracker(item.budget, item.budget_used, this.deps.now ?? (() => new Date()));
    let children = emptyBudgetUsed();
    persistence.status(item, 'running', budget.used);
    this.deps.audit.append('silas.executor.project_order', { work_item_id: item.id, order, external_dependencies: external });

    const dependsOn = (id: string) => persistence.get(id)?.depends_on ?? [];
    for (const id of order) {
      const task = persistence.get(id)!;
      if (task.status === 'done') {
        this.deps.audit.append('silas.executor.project_task_skipped', { work_item_id: item.id, task_id: id, reason: 'already done' });
        continue;
      }
      // §5.2.2 step 3: every dependency, inside the project or not, must be done first.
      const notDone = task.depends_on.filter((dep) => persistence.get(dep)?.status !== 'done');
      if (notDone.length > 0) {
        const reason = `task ${id} waits for ${notDone.map((dep) => `${dep} (${persistence.get(dep)?.status ?? 'missing'})`).join(', ')}`;
        persistence.status(task, 'blocked', task.budget_used, { reason });
        return this.finish(item, 'blocked', budget, children, reason);
      }
      const exhausted = budget.exhausted('action');
      if (exhausted.length > 0) return this.finish(item, 'stuck', budget, children, `${budget.describe(exhausted)} before task ${id}`);

      let runnable = task;
      if (task.approval_token === null) {
        const approved = await approveInteractively(this.deps, persistence, task, `project ${item.id}`);
        if (!approved.ok) {
          persistence.status(task, 'blocked', task.budget_used, { reason: approved.reason });
          return this.finish(item, 'blocked', budget, children, approved.reason);
        }
        runnable = approved.item;
      }
      const result = await this.tasks.run(runnable);
      const spent = consumedBy(result.budget_used, task.budget_used);
      children = mergeBudgetUsed(children, spent);
      budget.charge({ tokens: spent.tokens, cost_usd: spent.cost_usd, attempts: spent.attempts, planner_calls: spent.planner_calls, executor_runs: spent.executor_runs });
      if (result.status !== 'done') {
        const reason = `task ${id} ${result.status}: ${result.last_error ?? result.summary}`;
        for (const dependent of dependentsOf(id, order, dependsOn)) {
          const waiting = persistence.get(dependent)!;
          persistence.status(waiting, 'blocked', waiting.budget_used, { reason: `dependency ${id} is ${result.status}` });
        }
        return this.finish(item, result.status === 'blocked' ? 'blocked' : 'failed', budget, children, reason);
      }
    }

    if (item.verify.length === 0) return this.finish(item, 'done', budget, children, null);
    const report = await this.deps.verifierFor(this.deps.workDirFor(item)).runChecks(item.verify);
    this.deps.audit.append('silas.executor.verification', { work_item_id: item.id, attempt: 1, all_passed: report.all_passed, results: verificationSummary(report.results) });
    return this.finish(item, report.all_passed ? 'done' : 'failed', budget, children, report.all_passed ? null : `${report.failed.length} project verify check(s) failed`, report);
  }

  private finish(item: WorkItem, status: WorkItemResultStatus, budget: BudgetTracker, children: BudgetUsed, error: string | null, report?: VerificationReport): WorkItemResult {
    const done = item.tasks.filter((id) => this.admission.persistence.get(id)?.status === 'done').length;
    const result = WorkItemResult.parse({
      work_item_id: item.id,
      status,
      summary: `Project ${status}: ${done}/${item.tasks.length} task(s) done${report ? `, ${report.results.length - report.failed.length}/${report.results.length} project check(s) passed` : ''}${error ? `; ${error}` : ''}`,
      last_error: error,
      verification_results: (report?.results ?? []) as JsonObject[],
      budget_used: budget.used,
    });
    this.deps.audit.append('silas.executor.finished', {
      work_item_id: item.id,
      status,
      tasks_done: done,
      last_error: error === null ? null : clip(error),
      children_budget: { ...children },
    });
    this.admission.persistence.finish(result, report ? (report.results as JsonObject[]) : undefined);
    return result;
  }
}
