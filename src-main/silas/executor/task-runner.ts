import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { VerificationReport } from '../../../src-shared/silas/execution.js';
import { CONSULT_PLANNER, WorkItemResult, type WorkItem, type WorkItemResultStatus } from '../../../src-shared/silas/work.js';
import { GateConfigError } from '../gates/provider.js';
import type { ActiveGateSet } from '../gates/runner.js';
import { INTERRUPTED, runAttempt, type AttemptResult } from './attempt.js';
import { auditText, clip, verificationSummary } from './audit.js';
import { BudgetTracker } from './budget.js';
import { Admission } from './admission.js';
import { DEFAULT_LIMITS, type ExecutorDeps } from './deps.js';
import { hydrateFollowUp } from './hydration.js';
import type { ExecutorPersistence } from './persistence.js';
import { builtinTools } from './tools.js';
import type { AttemptFailure } from './types.js';

/**
 * The task execution loop of spec 002 §5.2.1: approval check, follow-up hydration, budget, the
 * retry loop with external verification, planner consultation, and the final result. Nothing
 * the agent says decides the outcome: only the verify checks, run outside its sandbox, do.
 */

export interface TaskRunOptions {
  /** The goal whose standing approval authorised this spawned task (re-checks its spawn policy). */
  goal?: WorkItem;
  /** Aborted when the person stops the run: the current attempt ends and the task fails. */
  signal?: AbortSignal;
}

/** §5.2.1 b: the briefing, then the previous failure, then the planner's guidance. */
function buildInstructions(item: WorkItem, failure: AttemptFailure | undefined, guidance: string | null, artifactKeys: readonly string[]): string {
  const parts = [item.body];
  if (artifactKeys.length > 0) parts.push(`## Input artifacts\nFrom ${item.follow_up_of}: ${artifactKeys.join(', ')}`);
  if (failure) {
    const checks = failure.failedChecks.map((c) => `- ${c.name}: ${c.reason}${c.output ? `\n  output: ${c.output.trim().slice(0, 500)}` : ''}`);
    parts.push(`## Previous attempt ${failure.attempt} failed\n${failure.reason}${checks.length > 0 ? `\n${checks.join('\n')}` : ''}`);
  }
  if (guidance) parts.push(`## Planner guidance\n${guidance}`);
  return parts.join('\n\n');
}

export class TaskRunner {
  private readonly admission: Admission;
  private readonly persistence: ExecutorPersistence;
  private readonly now: () => Date;

  constructor(private readonly deps: ExecutorDeps) {
    this.admission = new Admission(deps);
    this.persistence = this.admission.persistence;
    this.now = deps.now ?? (() => new Date());
  }

  async run(item: WorkItem, options: TaskRunOptions = {}): Promise<WorkItemResult> {
    // Filled by the preflight, which runs after the approval check and before the execution claim.
    const prepared: { artifacts: Record<string, string>; gateSet?: ActiveGateSet } = { artifacts: {} };
    const admitted = this.admission.admit(item, {
      goal: options.goal,
      preflight: () => {
        const hydrated = hydrateFollowUp(item, this.persistence, this.deps.audit);
        if (!hydrated.ok) return { status: 'blocked', reason: hydrated.reason };
        prepared.artifacts = hydrated.artifacts;
        try {
          prepared.gateSet = this.deps.gates.compile({ system: this.deps.systemGates ?? [], workItem: item.gates });
        } catch (error) {
          if (!(error instanceof GateConfigError)) throw error;
          return { status: 'blocked', reason: `invalid gate, nothing ran: ${error.message}` };
        }
        return null;
      },
    });
    if (!admitted.ok) return admitted.result;
    return this.loop(admitted.item, admitted.hash, prepared.gateSet!, prepared.artifacts, options.signal);
  }

  private async loop(item: WorkItem, hash: string, gateSet: ActiveGateSet, inputArtifacts: Record<string, string>, interrupt?: AbortSignal): Promise<WorkItemResult> {
    const limits = { ...DEFAULT_LIMITS, ...this.deps.limits };
    const budget = new BudgetTracker(item.budget, item.budget_used, this.now);
    const workDir = this.deps.workDirFor(item);
    const verifier = item.verify.length > 0 ? this.deps.verifierFor(workDir) : null;
    const agent = this.deps.agentFor(item);
    const failures: AttemptFailure[] = [];
    let guidance: string | null = null;
    let last: { attempt: AttemptResult; report: VerificationReport | null } | null = null;

    for (;;) {
      if (interrupt?.aborted) return this.finish(item, 'failed', budget, last, INTERRUPTED, failures);
      const exhausted = budget.exhausted('attempt');
      if (exhausted.length > 0) return this.finish(item, 'stuck', budget, last, budget.describe(exhausted), failures);
      budget.charge({ attempts: 1 });
      const attempt = budget.used.attempts;
      const running = this.persistence.status(item, 'running', budget.used, { attempts: attempt });
      if (!running.ok) return this.finish(item, 'blocked', budget, last, `the work item store refused to start attempt ${attempt}: ${running.reason}`, failures);

      const result = await runAttempt(
        { ...this.deps, tools: this.deps.tools ?? builtinTools(), limits },
        {
          item,
          planHash: hash,
          agent,
          gateSet,
          budget,
          attempt,
          instructions: buildInstructions(item, failures.at(-1), guidance, Object.keys(inputArtifacts)),
          failures,
          plannerGuidance: guidance,
          interrupt,
          inputArtifacts,
          sandbox: { ...this.deps.sandbox, work_dir: workDir },
        },
      );
      if (result.stop?.status === 'blocked' || result.stop?.status === 'failed') {
        return this.finish(item, result.stop.status, budget, { attempt: result, report: null }, result.stop.reason, failures);
      }

      let failure: AttemptFailure;
      let report: VerificationReport | null = null;
      if (verifier) {
        // §5.2.1 e: whatever the agent claims, only the checks decide.
        report = await verifier.runChecks(item.verify);
        this.deps.audit.append('silas.executor.verification', { work_item_id: item.id, attempt, all_passed: report.all_passed, results: verificationSummary(report.results) });
        if (report.all_passed) return this.finish(item, 'done', budget, { attempt: result, report }, null, failures, report);
        failure = { attempt, reason: `${report.failed.length} of ${report.results.length} verify check(s) failed`, failedChecks: report.failed };
      } else {
        // §5.2.1 f: no checks, so only a clean run counts: the agent finished and every call succeeded.
        const clean = result.stop === null && result.agentError === null && result.unsuccessfulCalls === 0;
        if (clean) return this.finish(item, 'done', budget, { attempt: result, report: null }, null, failures);
        failure = { attempt, reason: result.agentError ?? result.stop?.reason ?? `${result.unsuccessfulCalls} tool call(s) did not succeed`, failedChecks: [] };
      }
      if (result.agentError && verifier) failure = { ...failure, reason: `${failure.reason}; ${result.agentError}` };
      failures.push(failure);
      last = { attempt: result, report };
      this.deps.audit.append('silas.executor.attempt_failed', {
        work_item_id: item.id,
        attempt,
        reason: auditText(failure.reason),
        failed_checks: failure.failedChecks.map((c) => clip(c.name, 200)),
      });
      this.persistence.status(item, 'running', budget.used, { attempts: attempt, verificationResults: report ? (report.results as JsonObject[]) : [] });
      if (result.stop?.status === 'stuck') return this.finish(item, 'stuck', budget, last, result.stop.reason, failures);
      guidance = (await this.consultPlanner(item, attempt, failures, guidance, budget)) ?? guidance;
    }
  }

  /** §5.2.1 e: from the third attempt on, with `on_stuck: consult_planner`, while calls and attempts remain. */
  private async consultPlanner(item: WorkItem, attempt: number, failures: AttemptFailure[], previous: string | null, budget: BudgetTracker): Promise<string | null> {
    const planner = this.deps.planner;
    if (!planner || attempt < 3 || item.on_stuck !== CONSULT_PLANNER) return null;
    if (budget.exhausted('planner').length > 0 || budget.exhausted('attempt').length > 0) return null;
    budget.charge({ planner_calls: 1 });
    try {
      const answer = await planner.consult({ item, attempt, failures, previousGuidance: previous });
      budget.charge({ tokens: answer.tokens_used ?? 0, cost_usd: answer.cost_usd ?? 0 });
      const guidance = typeof answer.guidance === 'string' ? answer.guidance.slice(0, 20_000) : '';
      this.deps.audit.append('silas.executor.planner_consulted', { work_item_id: item.id, attempt, guidance: auditText(guidance) });
      return guidance.trim() === '' ? null : guidance;
    } catch (error) {
      this.deps.audit.append('silas.executor.planner_failed', { work_item_id: item.id, attempt, reason: clip((error as Error).message ?? String(error)) });
      return null;
    }
  }

  private finish(
    item: WorkItem,
    status: WorkItemResultStatus,
    budget: BudgetTracker,
    last: { attempt: AttemptResult; report: VerificationReport | null } | null,
    error: string | null,
    failures: readonly AttemptFailure[],
    passing?: VerificationReport,
  ): WorkItemResult {
    const attempts = budget.used.attempts;
    const claimed = last?.attempt.output?.summary;
    const checks = last?.report ? `${last.report.results.length - last.report.failed.length}/${last.report.results.length} verify check(s) passed` : 'no verify checks';
    const summary =
      status === 'done'
        ? `Done after ${attempts} attempt(s): ${checks}.`
        : `${status[0]!.toUpperCase()}${status.slice(1)} after ${attempts} attempt(s): ${error ?? failures.at(-1)?.reason ?? 'no reason recorded'}`;
    const result = WorkItemResult.parse({
      work_item_id: item.id,
      status,
      summary: claimed ? `${summary} Agent reported: ${clip(claimed, 1000)}` : summary,
      last_error: status === 'done' ? null : (error ?? failures.at(-1)?.reason ?? null),
      verification_results: (last?.report?.results ?? []) as JsonObject[],
      budget_used: budget.used,
      artifacts: status === 'done' ? (last?.attempt.artifacts ?? {}) : {},
      next_steps: status === 'done' ? (last?.attempt.output?.next_steps ?? []) : [],
    });
    this.deps.audit.append('silas.executor.finished', {
      work_item_id: item.id,
      status,
      attempts,
      last_error: result.last_error === null ? null : auditText(result.last_error),
      verified: passing ? true : last?.report ? false : null,
    });
    this.persistence.finish(result, passing ? (passing.results as JsonObject[]) : undefined);
    return result;
  }
}
