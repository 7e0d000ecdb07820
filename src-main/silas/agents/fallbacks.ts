import type { AgentResponse, ExecutorAgentOutput, RouteDecisionInput, ScorerOutput } from '../../../src-shared/silas/agents.js';
import type { StructuredFailure } from './structured.js';

/**
 * The deterministic fallbacks of spec 002 §5.1.0 rule 3, one per structured call. None of them
 * carries a plan_action or asks to skip an approval: a model that cannot answer in shape gets less
 * authority, never more.
 */

/** §5.1.0: the executor's attempt fails with exactly this `last_error`. */
export const EXECUTOR_OUTPUT_INVALID = 'executor_structured_output_invalid';

export const PROXY_FALLBACK_MESSAGE = "Sorry, I couldn't work out how to handle that message just now. Please try again, or rephrase it.";
export const PLANNER_FALLBACK_MESSAGE = "Sorry, I couldn't produce a usable plan for that. Nothing was planned or run; please try again, or rephrase the request.";

/** Proxy: a direct RouteDecision with a user-visible error, register `status`, mode `confirm_only_when_required`. */
export function proxyFallback(defaultProfile: string) {
  return (failure: StructuredFailure): RouteDecisionInput => ({
    route: 'direct',
    reason: `structured_output_fallback: ${failure.reason}`,
    response: { message: PROXY_FALLBACK_MESSAGE, memory_queries: [], memory_ops: [], plan_action: null, needs_approval: true },
    interaction_register: 'status',
    interaction_mode: 'confirm_only_when_required',
    continuation_of: null,
    context_profile: defaultProfile,
  });
}

/** Planner: an AgentResponse that reports the planning failure and has no plan_action. */
export function plannerFallback(): AgentResponse {
  return { message: PLANNER_FALLBACK_MESSAGE, memory_queries: [], memory_ops: [], plan_action: null, needs_approval: true };
}

/**
 * Executor: the value returned by runStructuredAgent; the LLM executor agent turns a fallback into
 * a failed attempt (`ExecutorStructuredOutputInvalid`), and the executor's retry and budget
 * policy goes on as after any failed attempt.
 */
export function executorFallback(): { action: 'finish'; output: ExecutorAgentOutput } {
  return { action: 'finish', output: { summary: EXECUTOR_OUTPUT_INVALID, artifact_refs: [], next_steps: [] } };
}

/**
 * Scorer: nothing kept, nothing evicted by the model. On `source: 'fallback'` the context manager
 * skips model eviction this turn and applies its aggressive heuristic eviction instead (§5.7).
 */
export function scorerFallback(): ScorerOutput {
  return { keep_groups: [], evict_groups: [] };
}

export class ExecutorStructuredOutputInvalid extends Error {
  constructor() {
    super(EXECUTOR_OUTPUT_INVALID);
    this.name = 'ExecutorStructuredOutputInvalid';
  }
}
