import { normalizeName } from '../../../src-shared/policy/normalize.js';
import { resolveAsk, type ApprovalOutcome, type EvaluationInput, type PolicyDecision, type PolicyEvaluator } from './evaluator.js';

/**
 * The two hooks of the conformance format (and of `silas policy eval`): `previous_calls`
 * simulates calls already made against the tool's rate limit, `user_response` answers an ASK
 * the way a person (or a timeout) would.
 */
export interface SimulatedContext {
  previous_calls?: unknown;
  user_response?: unknown;
}

function outcomeOf(answer: unknown): ApprovalOutcome | null {
  if (answer === 'deny' || answer === 'timeout' || answer === 'approve') return answer;
  if (answer === 'allow' || answer === 'approved') return 'approve';
  return null;
}

export function evaluateWithContext(evaluator: PolicyEvaluator, input: EvaluationInput, context: SimulatedContext = {}): PolicyDecision {
  const previous = Number(context.previous_calls ?? 0);
  if (evaluator.policy && input.tool !== undefined && Number.isFinite(previous) && previous > 0) {
    const tool = normalizeName(input.tool);
    const rule = evaluator.policy.toolRules.get(tool);
    if (rule?.rateLimit) evaluator.limiter.consume(tool, rule.rateLimit, previous);
  }
  const decision = evaluator.evaluate(input);
  const outcome = outcomeOf(context.user_response);
  return outcome ? resolveAsk(decision, outcome) : decision;
}
