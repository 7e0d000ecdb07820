import { actionable } from '../detect/detectors.js';
import { createPolicyEngine, type PolicyEngine, type PolicyEngineOptions } from '../engine.js';
import { evaluateWithContext, type SimulatedContext } from '../evaluate/simulated-context.js';
import type { JsonRpcId } from '../evaluate/errors.js';
import type { AgentPolicy } from '../policy/types.js';
import { normalizeName } from '../../../src-shared/policy/normalize.js';
import type { ExpectedDecision, PolicySuite } from './suite.js';

/*
 * The policy test bench (docs/policy-editor.md "Test bench"): calls evaluated under a draft, beside
 * the policy in force, with the rule that decided, the DLP matches and the rate-limit state. Every
 * call gets a fresh engine, so one case's rate-limit history never leaks into the next;
 * `previous_calls` simulates the history a case needs.
 */

type TrialDecision = ExpectedDecision;

export interface TrialOutcome {
  decision: TrialDecision;
  reason: string;
  /** The rule that decided (`tool_rules[write_file]`, `allowed_tools`, …), or null when none did. */
  rule: string | null;
  failedArg: string | null;
  errorCode: number | null;
  /** DLP patterns that matched the arguments, and what DLP would do with the request. */
  dlp: { action: string; rules: string[] };
  /** Calls the tool's rate limit still allows in its window after this one, or null without a limit. */
  rateLimitRemaining: number | null;
}

export interface TrialCall {
  name: string;
  method: string;
  tool?: string;
  args: Record<string, unknown>;
  context?: SimulatedContext;
}

export type TrialEnvironment = Pick<PolicyEngineOptions, 'homeDir' | 'cwd' | 'dataHome'>;

/** One call under one policy, on an engine of its own. */
export function tryCall(policy: AgentPolicy, call: TrialCall, environment: TrialEnvironment): TrialOutcome {
  const engine = createPolicyEngine(policy, environment);
  return evaluateOn(engine, policy, call);
}

function evaluateOn(engine: PolicyEngine, policy: AgentPolicy, call: TrialCall): TrialOutcome {
  const decision = evaluateWithContext(engine.evaluator, { method: call.method, tool: call.tool, args: call.args, requestId: 1 as JsonRpcId }, call.context ?? {});
  const dlp = engine.dlp && call.method === 'tools/call' ? engine.dlp.scanRequest(call.args) : null;
  const used = Number(call.context?.previous_calls ?? 0) + 1;
  const toolRule = call.tool === undefined ? undefined : policy.toolRules.get(normalizeName(call.tool));
  const limit = toolRule?.rateLimit;
  const dlpRules = [...new Set((dlp?.events ?? []).map((event) => event.rule))];
  // The proxy refuses a request DLP blocks whatever the rules said (an allow, or an ask never shown).
  if (dlp?.action === 'block' && (decision.decision === 'ALLOW' || decision.decision === 'ASK')) {
    return {
      decision: policy.mode === 'monitor' ? 'ALLOW_MONITOR' : 'BLOCK',
      reason: dlp.error?.message ?? `DLP blocked the request (${dlpRules.join(', ')})`,
      rule: `dlp.patterns[${dlpRules.join(', ')}]`,
      failedArg: null,
      errorCode: dlp.errorCode,
      dlp: { action: dlp.action, rules: dlpRules },
      rateLimitRemaining: limit ? Math.max(0, limit.count - used) : null,
    };
  }
  // The proxy refuses (or asks about) arguments that carry injected instructions or a disguised
  // command, after DLP (docs/threat-detection.md); chains need a session and are not tried here.
  const threats = engine.threats && call.method === 'tools/call' && engine.threats.config.arguments !== 'off' ? actionable(engine.threats.scanArguments(call.args)) : [];
  if (threats.length > 0 && (decision.decision === 'ALLOW' || decision.decision === 'ASK')) {
    const first = threats[0]!;
    const asks = engine.threats!.config.arguments === 'ask';
    return {
      decision: policy.mode === 'monitor' ? 'ALLOW_MONITOR' : asks ? 'ASK' : 'BLOCK',
      reason: `Arguments carry ${first.description} (${first.detector} rule ${first.rule}${first.path ? ` at ${first.path}` : ''})`,
      rule: `x-silas-threats.arguments[${first.rule}]`,
      failedArg: first.path || null,
      errorCode: asks ? null : -32001,
      dlp: { action: dlp?.action ?? 'none', rules: dlpRules },
      rateLimitRemaining: limit ? Math.max(0, limit.count - used) : null,
    };
  }
  return {
    decision: decision.monitored ? 'ALLOW_MONITOR' : decision.decision,
    reason: decision.reason,
    rule: decision.failedRule ?? decidingRule(policy, call, toolRule),
    failedArg: decision.failedArg,
    errorCode: decision.errorCode,
    dlp: { action: dlp?.action ?? 'none', rules: dlpRules },
    rateLimitRemaining: limit ? Math.max(0, limit.count - used) : null,
  };
}

/** The rule behind a decision that violated nothing (an allow, an ask): the tool's rule, or the allow-list. */
function decidingRule(policy: AgentPolicy, call: TrialCall, toolRule: { rawTool: string; action: string } | undefined): string | null {
  if (call.method !== 'tools/call' || call.tool === undefined) return policy.allowedMethods.has(call.method) ? 'allowed_methods' : null;
  if (toolRule) return `tool_rules[${toolRule.rawTool}] (${toolRule.action})`;
  if (policy.allowedTools.has('*') || policy.allowedTools.has(normalizeName(call.tool))) return 'allowed_tools';
  return null;
}

export interface SuiteResult {
  name: string;
  expected: TrialDecision;
  draft: TrialOutcome;
  /** Under the policy in force, when there is one. */
  current: TrialOutcome | null;
  passed: boolean;
  /** The draft decides differently from the policy in force. */
  changed: boolean;
}

export function runSuite(suite: PolicySuite, draft: AgentPolicy, current: AgentPolicy | null, environment: TrialEnvironment): SuiteResult[] {
  return [...suiteSteps(suite, draft, current, environment)];
}

function* suiteSteps(suite: PolicySuite, draft: AgentPolicy, current: AgentPolicy | null, environment: TrialEnvironment): Generator<SuiteResult> {
  for (const call of suite.calls) {
    const trial: TrialCall = { name: call.name, method: call.method, ...(call.tool !== undefined ? { tool: call.tool } : {}), args: call.args, context: call.context };
    const underDraft = tryCall(draft, trial, environment);
    const underCurrent = current ? tryCall(current, trial, environment) : null;
    yield { name: call.name, expected: call.expect, draft: underDraft, current: underCurrent, passed: underDraft.decision === call.expect, changed: underCurrent !== null && underCurrent.decision !== underDraft.decision };
  }
}

/** A decision the proxy recorded (`aip.decision`), with its arguments as stored (DLP-redacted where they were). */
export interface RecordedCall {
  index: number;
  ts: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  recorded: string;
}

export interface ReplayResult {
  call: RecordedCall;
  draft: TrialOutcome;
  current: TrialOutcome | null;
  /** The draft decides differently from what was recorded. */
  changed: boolean;
}

/**
 * Replays recorded calls under the draft (and the policy in force). One engine per policy for the
 * whole replay, like a running proxy, so rate limits count the calls in the order they happened.
 */
export function replay(calls: readonly RecordedCall[], draft: AgentPolicy, current: AgentPolicy | null, environment: TrialEnvironment): ReplayResult[] {
  return [...replaySteps(calls, draft, current, environment)];
}

function* replaySteps(calls: readonly RecordedCall[], draft: AgentPolicy, current: AgentPolicy | null, environment: TrialEnvironment): Generator<ReplayResult> {
  const draftEngine = createPolicyEngine(draft, environment);
  const currentEngine = current ? createPolicyEngine(current, environment) : null;
  for (const call of calls) {
    const trial: TrialCall = { name: `#${call.index}`, method: 'tools/call', tool: call.tool, args: call.args };
    const underDraft = evaluateOn(draftEngine, draft, trial);
    const underCurrent = currentEngine && current ? evaluateOn(currentEngine, current, trial) : null;
    yield { call, draft: underDraft, current: underCurrent, changed: comparable(call.recorded) !== comparable(underDraft.decision) };
  }
}

/** Calls evaluated between two turns of the runtime's event loop: a few milliseconds of work. */
const SLICE = 100;

/**
 * The bench in the runtime: the same evaluations, with the event loop given a turn every SLICE
 * calls, so a 10,000-call replay never stalls the proxies' asks or the cockpit (docs/architecture.md §1).
 */
export async function replayYielding(calls: readonly RecordedCall[], draft: AgentPolicy, current: AgentPolicy | null, environment: TrialEnvironment): Promise<ReplayResult[]> {
  return drainYielding(replaySteps(calls, draft, current, environment));
}

export async function runSuiteYielding(suite: PolicySuite, draft: AgentPolicy, current: AgentPolicy | null, environment: TrialEnvironment): Promise<SuiteResult[]> {
  return drainYielding(suiteSteps(suite, draft, current, environment));
}

async function drainYielding<T>(steps: Iterable<T>): Promise<T[]> {
  const out: T[] = [];
  for (const step of steps) {
    out.push(step);
    if (out.length % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

/** A recorded ASK that the person answered is still the policy's ASK. */
function comparable(decision: string): string {
  return decision.toUpperCase();
}
