import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { ExecutorAgentOutput, VerificationReport, VerificationResult } from '../../../src-shared/silas/execution.js';
import type { GateResult } from '../../../src-shared/silas/gates.js';
import type { ApprovalSubject } from '../../approval/engine.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { AuditAppender } from '../../../src-shared/audit/events.js';

/**
 * The contracts the work item executor (spec 002 §4.12, §5.2) drives. LLM agents, the planner,
 * the cockpit and the verification runner plug in here; the executor owns the loop, the budget,
 * the gates, the approvals and the audit trail around them.
 */

/** One tool call an agent proposes: `shell_exec {command: [argv…]}`, `python_exec {code}`. */
export interface ToolCall {
  tool: string;
  args: JsonObject;
}

/**
 * What the agent learns about its tool call: the model-facing channels only (`return_value`,
 * `content`, §3.7). `metadata` is application-only and never reaches an agent.
 * - `succeeded` / `failed`: the tool ran (exit 0 / anything else);
 * - `blocked`: a policy gate or a declined approval stopped it before it ran;
 * - `invalid`: its arguments do not match the tool's schema (nothing ran);
 * - `refused`: the attempt is over (budget exhausted, wall time out, a step gate blocked).
 */
export interface ToolCallOutcome {
  status: 'succeeded' | 'failed' | 'blocked' | 'invalid' | 'refused';
  return_value: string;
  content: JsonObject[];
  error: string | null;
}

/** An agent reports that plan step `step` finished and what it produced (`confidence_score`, …). */
export interface StepReport {
  step: number;
  outputs: JsonObject;
}

/** `after_step` gates' verdict; `outputs` carries any allowed mutation. */
export interface StepOutcome {
  status: 'continue' | 'blocked';
  outputs: JsonObject;
  reason: string | null;
}

/** Why one attempt did not finish the work item. */
export interface AttemptFailure {
  attempt: number;
  reason: string;
  failedChecks: VerificationResult[];
}

export interface ExecutorAgentContext {
  /** The approved work item, frozen: the agent reads its briefing but cannot change the plan. */
  readonly item: WorkItem;
  readonly attempt: number;
  /** `body`, then the previous attempt's failure and any planner guidance (§5.2.1 b). */
  readonly instructions: string;
  readonly failures: readonly AttemptFailure[];
  readonly plannerGuidance: string | null;
  /** Artifacts hydrated from `follow_up_of` (§5.2.1 step 0.5). */
  readonly inputArtifacts: Readonly<Record<string, string>>;
  /** The tools this executor offers. */
  readonly tools: readonly string[];
  /** Fires when the attempt is over (budget, wall time, a step gate); later tool calls are refused. */
  readonly signal: AbortSignal;
  callTool(call: ToolCall): Promise<ToolCallOutcome>;
  completeStep(report: StepReport): Promise<StepOutcome>;
  /** LLM usage as it is incurred, so the budget check before the next action sees it. */
  recordUsage(usage: { tokens?: number; cost_usd?: number }): void;
}

/**
 * The executor agent of §7.3. It proposes tool calls through `context.callTool` and returns a
 * summary; what it claims is never trusted: only external verification decides success.
 */
export interface ExecutorAgent {
  run(context: ExecutorAgentContext): Promise<ExecutorAgentOutput>;
}

/** §5.2.1 e: consulted after repeated failures when `on_stuck: consult_planner`. */
interface PlannerConsultation {
  item: WorkItem;
  attempt: number;
  failures: readonly AttemptFailure[];
  previousGuidance: string | null;
}

interface PlannerGuidance {
  guidance: string;
  tokens_used?: number;
  cost_usd?: number;
}

export interface PlannerConsultant {
  consult(request: PlannerConsultation, signal?: AbortSignal): Promise<PlannerGuidance>;
}

/**
 * A gate answered `require_approval` (§5.2.1 c2, d). The requester asks the person and returns a
 * token the owner signed over `subject` with scope `single_step`, or null when declined or
 * unanswered; the executor verifies (consumes) the token before resuming.
 */
interface GateApprovalRequest {
  kind: 'tool_call' | 'after_step';
  item: WorkItem;
  /** What the token must bind: the work item id and the hash of the paused action's payload. */
  subject: ApprovalSubject;
  payload: JsonObject;
  results: readonly GateResult[];
}

export interface GateApprovalRequester {
  request(request: GateApprovalRequest, signal?: AbortSignal): Promise<ApprovalToken | null>;
}

/** Runs a work item's verify checks outside the agent's sandbox (§4.10). */
export interface Verifier {
  runChecks(checks: readonly unknown[]): Promise<VerificationReport>;
}

/** Compatible with `AuditLog.append`; every executor decision goes through it. */
export type ExecutorAuditSink = AuditAppender;
