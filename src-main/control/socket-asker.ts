import type { CallArgs, CallName, CallResult } from '../../src-shared/contract/calls.js';
import type { JsonValue } from '../../src-shared/schemas/json.js';
import { clipAskingRule, RETURNED_FINDINGS_MAX, type ReturnedFinding } from '../../src-shared/schemas/approval.js';
import { ErrorCode, isSilasError } from '../../src-shared/errors.js';
import { homePaths } from '../home/paths.js';
import { connectToControlCenter, type LocalSocketClient } from './local-socket-client.js';
import { withdrawalOf, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../mcp/proxy/approver.js';
import type { PlanApprovalAnswer, PlanApprovalRequest, PlanApprover } from '../silas/executor/plan-approver.js';

type Unreachable = { outcome: 'unreachable'; reason: string };

/**
 * The asking side of every decision, over HOME/control.sock: a proxy asks about tool calls,
 * `silas run` about plans. One rule for both: a connection is opened on first use and kept; any
 * failure to reach the control center, or a dropped connection, answers `unreachable` at once
 * with the reason and the fix, so the asker fails closed and never hangs (DESIGN invariant 4);
 * an abort answers `timeout`, and a tool-call question still waiting is withdrawn in the runtime
 * too (`approvals.withdraw`), so its card leaves Review at once (docs/mcp-proxy.md "Asks follow the agent").
 */
export class ControlSocketAsker {
  private client: Promise<LocalSocketClient> | null = null;

  constructor(private readonly home: string) {}

  /** `approvals.request`: the tool call's question, clamped to what the contract accepts. */
  askToolCall(req: ApprovalRequest, timeoutMs: number, signal: AbortSignal): Promise<ApprovalAnswer> {
    const args = {
      server: req.server,
      tool: req.tool,
      args: asJson(req.args),
      display: asJson(req.display),
      requestId: req.requestId,
      sessionId: req.sessionId,
      rule: req.rule.slice(0, 500),
      reason: req.reason.slice(0, 1000),
      policyName: req.policyName.slice(0, 200),
      ...(req.askedBy ? { askedBy: clipAskingRule(req.askedBy) } : {}),
      ...(req.subject ? { subject: req.subject, findings: clipFindings(req.findings ?? []) } : {}),
      timeoutMs: Math.max(1000, Math.min(timeoutMs, 3_600_000)),
    };
    let answered = false;
    const withdraw = () => {
      if (!answered) void this.withdraw(req, signal);
    };
    signal.addEventListener('abort', withdraw, { once: true });
    return this.ask('approvals.request', args, signal, 'start it with `silas start`').finally(() => {
      answered = true;
      signal.removeEventListener('abort', withdraw);
    });
  }

  /** Best effort: a runtime that cannot be told still expires the card at its own timeout. */
  private async withdraw(req: ApprovalRequest, signal: AbortSignal): Promise<void> {
    const { reason, detail } = withdrawalOf(signal);
    try {
      const client = await this.client;
      await client?.call('approvals.withdraw', { sessionId: req.sessionId, requestId: req.requestId, reason, ...(detail !== undefined ? { detail: detail.slice(0, 200) } : {}) });
    } catch {
      // Unreachable, or a runtime from before withdrawals: the answer is already "timeout" here.
    }
  }

  /** `plans.requestApproval`: the plan's question; the runtime recomputes the plan hash. */
  askPlan(request: PlanApprovalRequest, signal?: AbortSignal): Promise<PlanApprovalAnswer> {
    const args = { item: request.item, planHash: request.planHash, source: request.source, timeoutMs: request.timeoutMs };
    return this.ask('plans.requestApproval', args, signal, 'start it with `silas start`, or approve on this terminal with --approve-here');
  }

  /**
   * `servers.reportStartFailure`: a proxy that could not start says why, for the Servers page.
   * Resolves with whether the runtime recorded it, or why not (no runtime: stderr is all there is).
   */
  async reportStartFailure(report: CallArgs<'servers.reportStartFailure'>, timeoutMs: number): Promise<{ recorded: true } | { recorded: false; why: string }> {
    const answer = await this.ask('servers.reportStartFailure', report, AbortSignal.timeout(timeoutMs), 'start it with `silas start`');
    if ('recorded' in answer) return { recorded: true };
    return { recorded: false, why: answer.outcome === 'timeout' ? `the Silas control center did not answer within ${timeoutMs} ms` : answer.reason };
  }

  close(): void {
    void this.client?.then((c) => c.close()).catch(() => undefined);
    this.client = null;
  }

  private async ask<N extends CallName>(call: N, args: CallArgs<N>, signal: AbortSignal | undefined, fix: string): Promise<CallResult<N> | Unreachable | { outcome: 'timeout' } | { outcome: 'deny'; reason: string }> {
    let client: LocalSocketClient;
    try {
      this.client ??= connectToControlCenter(homePaths(this.home).controlFile);
      client = await this.client;
      // Aborted while connecting: the question is never sent, so there is nothing to withdraw.
      if (signal?.aborted) return { outcome: 'timeout' };
    } catch (error) {
      this.client = null;
      return { outcome: 'unreachable', reason: `the Silas control center is not running for ${this.home} (${(error as Error).message}); ${fix}` };
    }
    const aborted = new Promise<{ outcome: 'timeout' }>((resolve) => {
      if (signal?.aborted) resolve({ outcome: 'timeout' });
      signal?.addEventListener('abort', () => resolve({ outcome: 'timeout' }), { once: true });
    });
    try {
      return await Promise.race([client.call(call, args), aborted]);
    } catch (error) {
      // Review refused to queue the question (its caps, docs/review.md): an answer, not a broken connection.
      // So is a plan it refused before queuing because it could never run (its id already ran to done).
      if (isSilasError(error) && (error.code === ErrorCode.RateLimited || error.code === ErrorCode.Conflict)) return { outcome: 'deny', reason: `the Silas control center refused to queue the question: ${error.message}` };
      this.client = null;
      return { outcome: 'unreachable', reason: `the Silas control center stopped answering (${(error as Error).message}); ${fix}` };
    }
  }
}

/** The proxy's `Approver` over the asker. */
export class ControlSocketApprover implements Approver {
  private readonly asker: ControlSocketAsker;

  constructor(
    home: string,
    private readonly timeoutMs: number,
  ) {
    this.asker = new ControlSocketAsker(home);
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    return this.asker.askToolCall(req, req.timeoutMs ?? this.timeoutMs, signal);
  }

  close(): void {
    this.asker.close();
  }
}

/** `silas run`'s `PlanApprover` over the asker; `close` releases the connection when the run ends. */
export class ControlSocketPlanApprover implements PlanApprover {
  private readonly asker: ControlSocketAsker;

  constructor(home: string) {
    this.asker = new ControlSocketAsker(home);
  }

  request(request: PlanApprovalRequest, signal?: AbortSignal): Promise<PlanApprovalAnswer> {
    return this.asker.askPlan(request, signal);
  }

  close(): void {
    this.asker.close();
  }
}

export function planApproverForHome(home: string): PlanApprover {
  return new ControlSocketPlanApprover(home);
}

function asJson(value: unknown): JsonValue {
  return (JSON.parse(JSON.stringify(value ?? null)) ?? null) as JsonValue;
}

/** A result question's findings within what the contract accepts: a long excerpt shortens the card instead of failing the ask. */
function clipFindings(findings: readonly ReturnedFinding[]): ReturnedFinding[] {
  return findings.slice(0, RETURNED_FINDINGS_MAX).map((f) => ({ rule: f.rule.slice(0, 100), description: f.description.slice(0, 500), path: f.path.slice(0, 500), excerpt: f.excerpt.slice(0, 500) }));
}
