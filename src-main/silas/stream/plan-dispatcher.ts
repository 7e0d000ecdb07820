import type { CardOrigin, DecisionAnswer } from '../../../src-shared/schemas/review.js';
import type { StreamEvent, WorkProgressStatus } from '../../../src-shared/schemas/stream.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem, WorkItemResult } from '../../../src-shared/silas/work.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { DispatchedWork, PlanOrigin } from './sealed-stream-state.js';

/*
 * §5.1 step 12 and §5.1.2 after the turn: the plan goes to the person (the Review card, signed on
 * approval), the token is verified and consumed by the executor, and the work runs in the
 * sandbox as a background work item whose progress reaches the Stream as events (`running`,
 * `verification_failed`, `done`, `blocked`). The turn that proposed it has already answered.
 */

export interface PlanExecutionPorts {
  /**
   * The person's answer about this exact plan (the decision queue's plan kind); never throws.
   * Aborting `signal` withdraws the card. `origin` is stamped on the card: the channel and taint
   * of the conversation that proposed it.
   */
  ask(item: WorkItem, planHash: string, source: string, signal: AbortSignal, origin: CardOrigin): Promise<DecisionAnswer>;
  /** §5.1.2 steps 6–9: consume the token for this item, then execute it; a refused token runs nothing. */
  execute(item: WorkItem, token: ApprovalToken, signal: AbortSignal, scope: string): Promise<{ ok: true; result: WorkItemResult } | { ok: false; reason: string }>;
}

/** Where dispatched work is kept across restarts, sealed (`SealedWorkLedger`). */
interface WorkLedger {
  record(work: DispatchedWork, status: string, at: Date): void;
  setStatus(workItemId: string, status: string, at: Date): void;
  /** Unfinished work whose seal holds; `refused` counts the rows that failed it (already reported). */
  unfinished(): { work: (DispatchedWork & { status: string })[]; refused: number };
}

/** Who wrote a line the runtime adds to a conversation (docs/silas/stream.md "Taint of what the executor wrote"). */
export type ReportSource = 'runtime' | 'executor';

export interface ReportOptions {
  chips?: readonly { value: string; label: string }[];
  /** `executor`: written after reading tool output, so `external` wherever it appears (§5.12). */
  from?: ReportSource;
}

export interface PlanDispatcherDeps {
  ports: PlanExecutionPorts;
  work: WorkLedger;
  now: () => Date;
  audit: Pick<AuditLog, 'append'>;
  /** To whoever holds the scope now (a reload may have moved it to another session). */
  emit: (scope: string, event: StreamEvent) => void;
  /** A line for the scope's conversation (chronicle and channel), e.g. the result's summary, with suggestion chips. */
  report: (scope: string, text: string, options?: ReportOptions) => void;
}

export interface PlanRun {
  scope: string;
  item: WorkItem;
  planHash: string;
  /** The channel and taint of the conversation that proposed it: shown on its card. */
  origin: PlanOrigin;
}

/**
 * The card's origin (src-shared/schemas/review.ts `CardOrigin`): the Stream knows the channel of
 * the conversation and the taint of the answer that proposed the plan; the requester is worded
 * from those facts, never from anything the model wrote.
 */
function planCardOrigin(scope: string, origin: PlanOrigin): CardOrigin {
  const requester =
    origin.channel === 'cockpit'
      ? 'your Stream conversation in the cockpit'
      : origin.signed
        ? 'a conversation over the local socket whose message was signed with your owner key (silas chat)'
        : 'a local process over the local socket (unsigned messages, not shown as yours)';
  return { channel: origin.channel, sourceId: `stream:${scope}`, requester, taint: origin.taint, governed: false };
}

export interface PlanDispatcher {
  dispatch(run: PlanRun): void;
}

const MAX_CHIPS = 5;

/**
 * The executor's next steps as suggestion chips. The executor wrote them after reading tool
 * output, so they are `external` suggestions from the executor (§5.12): a channel offers them as
 * such and never sends one as the person's words unless the person picks it (the cockpit puts its
 * text in the composer; `silas chat` sends it unsigned, as external). docs/silas/stream.md.
 */
function suggestionChips(nextSteps: readonly string[]): { value: string; label: string; source: 'executor'; taint: 'external' }[] {
  return nextSteps
    .map((step) => step.trim())
    .filter((step) => step !== '')
    .slice(0, MAX_CHIPS)
    .map((step) => ({ value: step.slice(0, 200), label: step.length > 80 ? `${step.slice(0, 79)}…` : step, source: 'executor' as const, taint: 'external' as const }));
}

/** A failed task whose checks ran and did not all pass is shown as a failed verification. */
function progressOf(result: WorkItemResult): WorkProgressStatus {
  switch (result.status) {
    case 'done':
    case 'healthy':
      return 'done';
    case 'failed':
      return result.verification_results.some((check) => check.passed === false) ? 'verification_failed' : 'failed';
    default:
      return result.status;
  }
}

interface Awaiting {
  scope: string;
  planHash: string;
  /** Answers the approval with a token made elsewhere (the terminal) and withdraws the card. */
  answer(token: ApprovalToken): void;
}

export class BackgroundPlans implements PlanDispatcher {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly awaiting = new Map<string, Awaiting>();
  private stopping = false;

  constructor(private readonly deps: PlanDispatcherDeps) {}

  dispatch(run: PlanRun): void {
    this.deps.work.record({ workItemId: run.item.id, scopeId: run.scope, planHash: run.planHash, itemJson: JSON.stringify(run.item), origin: run.origin }, 'awaiting_approval', this.deps.now());
    const controller = new AbortController();
    const done = this.run(run, controller.signal).finally(() => this.running.delete(run.item.id));
    this.running.set(run.item.id, { controller, done });
  }

  /** A plan with this id waits for approval or runs: its id is taken until it ends (silas/store/plan-ids.ts). */
  inFlight(workItemId: string): boolean {
    return this.running.has(workItemId);
  }

  /** Resolves when every dispatched plan has ended (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((entry) => entry.done));
  }

  /**
   * Shutdown, before the queue answers every pending approval "no": a plan still waiting is left
   * `interrupted` (asked again after the restart) instead of declined; running work is told to stop.
   */
  beginShutdown(): void {
    this.stopping = true;
  }

  stopAll(): void {
    this.stopping = true;
    for (const entry of this.running.values()) entry.controller.abort();
  }

  /**
   * §5.1.3 step 6 after a restart: work that had not finished is dispatched again. Its approval,
   * if any, was single-use or answered "no" at shutdown, so the person is asked again; the
   * conversation says so. Only rows whose seal holds are resumed: a row written outside Silas is
   * not asked about, not announced, and counted in `refused` (each one a `state.seal_refused`).
   */
  resume(parse: (json: string) => WorkItem | null): { resumed: number; refused: number } {
    let resumed = 0;
    const { work: unfinished, refused } = this.deps.work.unfinished();
    for (const work of unfinished) {
      const item = parse(work.itemJson);
      if (item === null) {
        this.deps.work.setStatus(work.workItemId, 'failed', this.deps.now());
        continue;
      }
      const where = work.status === 'approved' || work.status === 'running' ? 'running' : 'waiting for your approval';
      this.deps.report(work.scopeId, `Silas restarted while the plan "${item.title}" was ${where}; it needs your approval again in Review.`);
      this.dispatch({ scope: work.scopeId, item, planHash: work.planHash, origin: work.origin });
      resumed += 1;
    }
    return { resumed, refused };
  }

  /**
   * `silas chat --approve-here`: a token the person made at the terminal (owner-signed there) for
   * a plan of this scope that waits. Only the binding is checked here (this work item, this plan
   * hash); the executor verifies the signature and consumes the token before anything runs.
   */
  approveHere(scope: string, workItemId: string, token: ApprovalToken): { accepted: boolean; reason: string } {
    const waiting = this.awaiting.get(workItemId);
    if (!waiting || waiting.scope !== scope) return { accepted: false, reason: `no plan ${workItemId} is waiting for approval in this conversation` };
    if (token.work_item_id !== workItemId || token.plan_hash !== waiting.planHash) {
      return { accepted: false, reason: 'the token is not for this plan (its work item or plan hash differs); nothing was approved' };
    }
    if (token.verdict !== 'approved') return { accepted: false, reason: `the token's verdict is "${token.verdict}", not approved` };
    this.deps.audit.append('silas.stream.terminal_approval', { scope_id: scope, work_item_id: workItemId, plan_hash: waiting.planHash, token_id: token.token_id });
    waiting.answer(token);
    return { accepted: true, reason: 'approved at the terminal; the executor verifies the token before it runs' };
  }

  private async approval(run: PlanRun, signal: AbortSignal): Promise<DecisionAnswer> {
    const withdraw = new AbortController();
    const stop = () => withdraw.abort('the work was stopped');
    signal.addEventListener('abort', stop, { once: true });
    let answerHere: (answer: DecisionAnswer) => void = () => undefined;
    const here = new Promise<DecisionAnswer>((resolve) => (answerHere = resolve));
    this.awaiting.set(run.item.id, {
      scope: run.scope,
      planHash: run.planHash,
      answer: (token) => {
        answerHere({ outcome: 'approve', token });
        withdraw.abort('approved at the terminal with the owner key');
      },
    });
    try {
      return await Promise.race([here, this.deps.ports.ask(run.item, run.planHash, `Silas Stream (${run.scope})`, withdraw.signal, planCardOrigin(run.scope, run.origin))]);
    } finally {
      this.awaiting.delete(run.item.id);
      signal.removeEventListener('abort', stop);
    }
  }

  private progress(run: PlanRun, status: WorkProgressStatus, detail: string, from: ReportSource = 'runtime'): void {
    this.deps.work.setStatus(run.item.id, status, this.deps.now());
    this.deps.audit.append('silas.stream.work_progress', { scope_id: run.scope, work_item_id: run.item.id, status, detail: detail.slice(0, 2000) });
    this.deps.emit(run.scope, {
      type: 'work',
      scope: run.scope,
      work_item_id: run.item.id,
      title: run.item.title.slice(0, 500),
      status,
      detail: detail.slice(0, 5000),
      plan_hash: run.planHash,
      review_id: null,
      item: status === 'awaiting_approval' ? run.item : null,
      ...(from === 'executor' ? { detail_taint: 'external' as const } : {}),
    });
  }

  private async run(run: PlanRun, signal: AbortSignal): Promise<void> {
    const { item } = run;
    try {
      this.progress(run, 'awaiting_approval', `waiting for your approval in Review (plan hash ${run.planHash.slice(0, 12)}…)`);
      const answer = await this.approval(run, signal);
      if (answer.outcome !== 'approve' && this.stopping) {
        // Not a "no" from the person: the runtime is stopping. The plan is asked again after the restart.
        this.deps.work.setStatus(item.id, 'interrupted', this.deps.now());
        return;
      }
      if (answer.outcome !== 'approve') {
        const reason = answer.outcome === 'timeout' ? 'nobody answered in time' : answer.reason;
        this.progress(run, 'declined', `not approved: ${reason}; nothing ran`);
        this.deps.report(run.scope, `The plan "${item.title}" was not approved (${reason}); nothing ran.`);
        return;
      }
      this.progress(run, 'approved', `approved with token ${answer.token.token_id.slice(0, 12)}…`);
      this.progress(run, 'running', 'executing in the sandbox');
      const executed = await this.deps.ports.execute(item, answer.token, signal, run.scope);
      if (!executed.ok) {
        this.progress(run, 'blocked', `the approval was refused: ${executed.reason}; nothing ran`);
        this.deps.report(run.scope, `The plan "${item.title}" did not run: ${executed.reason}.`);
        return;
      }
      const { result } = executed;
      const checks = result.verification_results.map((check) => `${check.passed === true ? 'PASS' : 'FAIL'} ${String(check.name)}`).join(', ');
      const detail = `${result.summary}${checks === '' ? '' : ` (verification: ${checks})`}`;
      this.progress(run, progressOf(result), detail, 'executor');
      // §5.1 step 13: the result's next steps become suggestions, offered as chips (§0.5 item 8).
      // The summary and the steps were written after reading tool output: external (§5.12).
      this.deps.report(run.scope, `The plan "${item.title}" ended ${result.status}: ${detail}`, { chips: suggestionChips(result.next_steps), from: 'executor' });
    } catch (error) {
      // Background work must not take the runtime down, nor end silently.
      const reason = error instanceof Error ? error.message : String(error);
      this.progress(run, 'failed', `the work item failed inside the runtime: ${reason.slice(0, 500)}`);
      this.deps.report(run.scope, `The plan "${item.title}" failed inside the runtime; see the activity log.`);
    }
  }
}
