import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { ExecutionResult, ExecutorAgentOutput, SandboxErrorCode, type SandboxConfigInput } from '../../../src-shared/silas/execution.js';
import type { GateResult } from '../../../src-shared/silas/gates.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { ActiveGateSet, GateRunner } from '../gates/runner.js';
import type { EphemeralExecutor } from '../../sandbox/ephemeral-executor.js';
import { auditArgs, auditText, clip } from './audit.js';
import type { BudgetTracker } from './budget.js';
import { approvePausedAction, type ApprovalPort } from './gate-approval.js';
import { describeInvalidArgs, type ToolRegistry } from './tools.js';
import type { AttemptFailure, ExecutorAgent, ExecutorAgentContext, ExecutorAuditSink, GateApprovalRequester, StepOutcome, StepReport, ToolCall, ToolCallOutcome } from './types.js';

/**
 * One attempt of the task loop (spec 002 §5.2.1 c–d): the agent runs with a tool-call function
 * that checks the budget, validates arguments, runs `on_tool_call` gates, audits the call before
 * it happens and dispatches it to the sandbox; `after_step` gates judge the steps it reports.
 */

export interface AttemptDeps {
  ephemeral: EphemeralExecutor;
  tools: ToolRegistry;
  gates: Pick<GateRunner, 'checkGates'>;
  approvals: ApprovalPort;
  gateApprover?: GateApprovalRequester;
  audit: ExecutorAuditSink;
  limits: { maxToolCallsPerAttempt: number; toolTimeoutSeconds: number; maxOutputBytes: number };
  newId?: () => string;
}

export interface AttemptInput {
  item: WorkItem;
  planHash: string;
  agent: ExecutorAgent;
  gateSet: ActiveGateSet;
  budget: BudgetTracker;
  attempt: number;
  instructions: string;
  failures: readonly AttemptFailure[];
  plannerGuidance: string | null;
  /** The person stopped the run (Ctrl-C): the attempt ends at once and nothing more is called. */
  interrupt?: AbortSignal;
  inputArtifacts: Readonly<Record<string, string>>;
  sandbox: SandboxConfigInput & { work_dir: string };
}

/** Why an attempt ended early; `stuck` is a budget stop, `blocked` a gate, `failed` a sandbox that cannot run anything. */
interface AttemptStop {
  status: 'stuck' | 'blocked' | 'failed';
  reason: string;
}

export interface AttemptResult {
  stop: AttemptStop | null;
  output: ExecutorAgentOutput | null;
  agentError: string | null;
  /** Artifacts of successful tool calls, merged in call order (§5.2.1 c3). */
  artifacts: Record<string, string>;
  /** The tool execution ledger: what actually ran (§5.2.1 c1). */
  results: ExecutionResult[];
  /** Tool calls that did not succeed (blocked, invalid, failed), for the success rule without checks. */
  unsuccessfulCalls: number;
}

export const INTERRUPTED = 'interrupted by the person before it finished; a new approval can run it again';

/** Sandbox failures no retry can fix: the work item fails instead of burning its attempts. */
const FATAL_SANDBOX_CODES = new Set<string>([SandboxErrorCode.NetworkUnavailable, SandboxErrorCode.BackendUnavailable, SandboxErrorCode.PathInvalid, SandboxErrorCode.LimitUnavailable]);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

function escalationNote(item: WorkItem, result: GateResult, gateSet: ActiveGateSet): string {
  const gate = gateSet.gates.find((g) => g.name === result.gate_name);
  const message = gate ? item.escalation[gate.on_block]?.message : null;
  return message ? ` (${gate!.on_block}: ${message})` : '';
}

export async function runAttempt(deps: AttemptDeps, input: AttemptInput): Promise<AttemptResult> {
  const { item, budget, attempt, gateSet } = input;
  const controller = new AbortController();
  const result: AttemptResult = { stop: null, output: null, agentError: null, artifacts: {}, results: [], unsuccessfulCalls: 0 };
  const scope = { work_item_id: item.id, attempt };
  let calls = 0;
  const checkedSteps = new Map<number, JsonObject>();
  const close = (stop: AttemptStop) => {
    result.stop ??= stop;
    controller.abort();
  };
  const refused = (reason: string): ToolCallOutcome => ({ status: 'refused', return_value: '', content: [], error: reason });
  const onInterrupt = () => close({ status: 'failed', reason: INTERRUPTED });
  if (input.interrupt?.aborted) onInterrupt();
  input.interrupt?.addEventListener('abort', onInterrupt, { once: true });

  async function callTool(call: ToolCall): Promise<ToolCallOutcome> {
    if (controller.signal.aborted) return refused(`the attempt is over: ${result.stop?.reason ?? 'stopped'}`);
    const index = ++calls;
    const at = { ...scope, call_index: index, tool: clip(String(call?.tool), 100) };
    if (index > deps.limits.maxToolCallsPerAttempt) {
      close({ status: 'stuck', reason: `more than ${deps.limits.maxToolCallsPerAttempt} tool calls in one attempt` });
      deps.audit.append('silas.executor.tool_call_refused', { ...at, reason: result.stop!.reason });
      return refused(result.stop!.reason);
    }
    const exhausted = budget.exhausted('action');
    if (exhausted.length > 0) {
      close({ status: 'stuck', reason: budget.describe(exhausted) });
      deps.audit.append('silas.executor.tool_call_refused', { ...at, reason: result.stop!.reason });
      return refused(result.stop!.reason);
    }
    const invalid = (error: string): ToolCallOutcome => {
      result.unsuccessfulCalls += 1;
      deps.audit.append('silas.executor.tool_call_invalid', { ...at, reason: clip(error) });
      return { status: 'invalid', return_value: '', content: [], error };
    };
    const tool = typeof call?.tool === 'string' ? deps.tools.get(call.tool) : undefined;
    if (!tool) return invalid(`unknown tool "${clip(String(call?.tool), 100)}"; available: ${[...deps.tools.keys()].join(', ')}`);
    const checked = tool.validate(call.args);
    if (!checked.ok) return invalid(describeInvalidArgs(tool.name, checked));

    const gated = await deps.gates.checkGates(gateSet, 'on_tool_call', { tool_name: tool.name, tool_args: checked.args }, { scope: { ...scope, call_index: index } });
    const blocked = (reason: string): ToolCallOutcome => {
      result.unsuccessfulCalls += 1;
      deps.audit.append('silas.executor.tool_call_blocked', { ...at, reason: clip(reason) });
      return { status: 'blocked', return_value: '', content: [], error: reason };
    };
    if (gated.blocking) return blocked(`gate ${gated.blocking.gate_name} blocked the call: ${gated.blocking.reason}${escalationNote(item, gated.blocking, gateSet)}`);
    // A gate may rewrite tool_args (§3.4); the rewrite must still satisfy the tool's schema.
    const rewritten = tool.validate(gated.context.tool_args);
    if (!rewritten.ok) return invalid(`after gate rewrite: ${describeInvalidArgs(tool.name, rewritten)}`);
    const args = rewritten.args;
    if (gated.decision === 'require_approval') {
      const payload = { kind: 'tool_call', work_item_id: item.id, plan_hash: input.planHash, attempt, call_index: index, tool: tool.name, args };
      const answer = await approvePausedAction({ approvals: deps.approvals, requester: deps.gateApprover, audit: deps.audit }, { kind: 'tool_call', item, payload, results: gated.approvals }, controller.signal);
      if (!answer.granted) return blocked(answer.reason);
      if (controller.signal.aborted) return refused(`the attempt is over: ${result.stop?.reason ?? 'stopped'}`);
    }

    // Invariant 3: the decision to run is in the ledger before the sandbox starts.
    deps.audit.append('silas.executor.tool_call', { ...at, args: auditArgs(args), gate_decision: gated.decision });
    const remaining = Math.ceil(budget.remainingWallSeconds());
    const executionId = deps.newId?.() ?? `exec-${randomUUID()}`;
    const started = performance.now();
    let execution: ExecutionResult;
    try {
      execution = await deps.ephemeral.execute({
        execution_id: executionId,
        step_index: index,
        task_description: item.body,
        action: tool.name,
        args,
        input_artifacts: { ...input.inputArtifacts },
        credential_refs: {},
        timeout_seconds: Math.max(1, Math.min(deps.limits.toolTimeoutSeconds, remaining)),
        max_output_bytes: deps.limits.maxOutputBytes,
        sandbox_config: { ...input.sandbox, network_access: false },
      }, { signal: controller.signal });
    } catch (error) {
      // An executor that throws instead of reporting still leaves a failed result in the ledger.
      execution = ExecutionResult.parse({
        execution_id: executionId,
        step_index: index,
        success: false,
        return_value: '',
        error: `the executor failed: ${clip(error instanceof Error ? error.message : String(error))}`,
        duration_seconds: (performance.now() - started) / 1000,
      });
    }
    budget.charge({ executor_runs: 1, tokens: execution.tokens_used, cost_usd: execution.cost_usd });
    result.results.push(execution);
    if (execution.success) Object.assign(result.artifacts, execution.artifacts);
    else result.unsuccessfulCalls += 1;
    const errorCode = typeof execution.metadata.error_code === 'string' ? execution.metadata.error_code : null;
    deps.audit.append('silas.executor.tool_result', {
      ...at,
      execution_id: execution.execution_id,
      success: execution.success,
      error: execution.error === null ? null : auditText(execution.error),
      error_code: errorCode,
      exit_code: typeof execution.metadata.exit_code === 'number' ? execution.metadata.exit_code : null,
      duration_seconds: execution.duration_seconds,
      output_chars: execution.return_value.length,
      artifacts: Object.keys(execution.artifacts).slice(0, 100),
      sandbox_limits: execution.metadata.sandbox_limits ?? null,
    });
    if (errorCode !== null && FATAL_SANDBOX_CODES.has(errorCode)) {
      close({ status: 'failed', reason: execution.error ?? errorCode });
      return refused(result.stop!.reason);
    }
    // Model-facing channels only: metadata never reaches the agent (§3.7).
    return { status: execution.success ? 'succeeded' : 'failed', return_value: execution.return_value, content: execution.content, error: execution.error };
  }

  async function evaluateStep(step: number, outputs: JsonObject): Promise<StepOutcome> {
    const gated = await deps.gates.checkGates(gateSet, 'after_step', outputs, { step, scope: { ...scope, step } });
    checkedSteps.set(step, gated.context);
    deps.audit.append('silas.executor.step_completed', { ...scope, step, outputs: auditArgs(outputs), gate_decision: gated.decision });
    if (gated.blocking) {
      const reason = `gate ${gated.blocking.gate_name} blocked step ${step}: ${gated.blocking.reason}${escalationNote(item, gated.blocking, gateSet)}`;
      close({ status: 'blocked', reason });
      return { status: 'blocked', outputs: gated.context, reason };
    }
    if (gated.decision === 'require_approval') {
      const payload = { kind: 'after_step', work_item_id: item.id, plan_hash: input.planHash, attempt, step, outputs: gated.context };
      const answer = await approvePausedAction({ approvals: deps.approvals, requester: deps.gateApprover, audit: deps.audit }, { kind: 'after_step', item, payload, results: gated.approvals }, controller.signal);
      if (!answer.granted) {
        close({ status: 'blocked', reason: `step ${step}: ${answer.reason}` });
        return { status: 'blocked', outputs: gated.context, reason: result.stop!.reason };
      }
    }
    return { status: 'continue', outputs: gated.context, reason: null };
  }

  async function completeStep(report: StepReport): Promise<StepOutcome> {
    if (controller.signal.aborted) return { status: 'blocked', outputs: {}, reason: `the attempt is over: ${result.stop?.reason ?? 'stopped'}` };
    if (!Number.isInteger(report?.step) || report.step < 0 || report.outputs === null || typeof report.outputs !== 'object' || Array.isArray(report.outputs)) {
      return { status: 'blocked', outputs: {}, reason: 'a step report is {step: <whole number>, outputs: {…}}' };
    }
    return evaluateStep(report.step, structuredClone(report.outputs));
  }

  const context: ExecutorAgentContext = {
    // The agent reads the plan, never the approval token (§3.7: executors get no approval tokens).
    item: deepFreeze(structuredClone({ ...item, approval_token: null })),
    attempt,
    instructions: input.instructions,
    failures: deepFreeze(structuredClone([...input.failures])),
    plannerGuidance: input.plannerGuidance,
    inputArtifacts: Object.freeze({ ...input.inputArtifacts }),
    tools: Object.freeze([...deps.tools.keys()]),
    signal: controller.signal,
    callTool,
    completeStep,
    recordUsage(usage) {
      if (controller.signal.aborted) return;
      try {
        budget.charge({ tokens: usage?.tokens ?? 0, cost_usd: usage?.cost_usd ?? 0 });
      } catch (error) {
        close({ status: 'stuck', reason: `invalid usage report: ${(error as Error).message}` });
      }
    },
  };

  // Wall time is a hard bound: an agent that ignores the abort signal is left behind, and any
  // tool call it still makes is refused.
  const wallMs = Math.max(0, budget.remainingWallSeconds() * 1000);
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<'stopped'>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve('stopped'), { once: true });
    timer = setTimeout(() => close({ status: 'stuck', reason: budget.describe(['max_wall_time_seconds']) }), Math.min(wallMs, 2 ** 31 - 1));
    timer.unref?.();
  });
  const running = Promise.resolve().then(() => input.agent.run(context));
  // An agent left behind may still fail later; that failure belongs to no one.
  running.catch(() => undefined);
  try {
    const outcome = await Promise.race([running, stopped]);
    if (outcome !== 'stopped') {
      const parsed = ExecutorAgentOutput.safeParse(outcome);
      if (parsed.success) result.output = parsed.data;
      else result.agentError = `the agent returned an invalid output (${parsed.error.issues[0]!.path.join('.') || 'output'}: ${parsed.error.issues[0]!.message})`;
    }
  } catch (error) {
    result.agentError = `the agent failed: ${clip(error instanceof Error ? error.message : String(error))}`;
  } finally {
    clearTimeout(timer);
  }

  if (result.stop === null && result.agentError === null) {
    // §5.2.1 d: after_step gates the agent did not report still run, on empty outputs, so skipping
    // a report cannot skip a gate (a predicate on a missing value blocks).
    const steps = [...new Set(gateSet.gates.filter((g) => g.on === 'after_step').map((g) => g.after_step!))].sort((a, b) => a - b);
    for (const step of steps) {
      if (checkedSteps.has(step)) continue;
      const outcome = await evaluateStep(step, {});
      if (outcome.status === 'blocked') break;
    }
  }
  if (result.output) {
    const produced = new Set(Object.keys(result.artifacts));
    const missing = result.output.artifact_refs.filter((ref) => !produced.has(ref));
    if (missing.length > 0) deps.audit.append('silas.executor.artifact_ref_mismatch', { ...scope, claimed_but_missing: missing.slice(0, 100).map((r) => clip(r, 200)) });
  }
  controller.abort();
  input.interrupt?.removeEventListener('abort', onInterrupt);
  return result;
}
