import { ALGORITHM_VERSION, BEHAVIORAL_SIMILARITY_THRESHOLD, DEFAULT_SIMILARITY_THRESHOLD, NEAR_BOUNDARY_MARGIN, VIOLATION_SEVERITY } from '../../src-shared/aap/constants.js';
import type { CheckName, RecommendedAction, VerificationResult, VerificationWarning, Violation } from '../../src-shared/aap/results.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import { forbiddenMatch, isBounded } from './action-names.js';
import type { CompiledCard } from './card.js';
import { checkEscalation } from './escalation-checks.js';
import { similarityToCard } from './features.js';

/*
 * Trace verification, spec 003 §7. The checks run in Appendix B.1's order, which is §7.3's
 * pseudocode order preceded by the card checks: card reference, card expiry, autonomy, forbidden
 * actions, escalation, values, then behavioural similarity. §7.3's prose lists the same checks in
 * another order; the order changes only the order of the violations reported.
 */

export const CHECKS: readonly CheckName[] = ['card_reference', 'card_expiry', 'autonomy', 'forbidden', 'escalation', 'values', 'behavioral_similarity'];

export interface VerifyOptions {
  /** When the verification happens: the result's `timestamp`. */
  now: Date;
}

function violation(type: Violation['type'], description: string, traceField: string | null): Violation {
  return { type, severity: VIOLATION_SEVERITY[type], description, trace_field: traceField };
}

function structuralChecks(trace: ApTrace, compiled: CompiledCard): Violation[] {
  const { card } = compiled;
  const violations: Violation[] = [];
  if (trace.card_id !== card.card_id) {
    violations.push(violation('card_mismatch', `Trace references card '${trace.card_id}', not the card provided ('${card.card_id}')`, 'card_id'));
  }
  // A trace is judged by the card in force when it was made: expiry is compared with the trace's time.
  if (card.expires_at != null && Date.parse(card.expires_at) <= Date.parse(trace.timestamp)) {
    violations.push(violation('card_expired', `Card '${card.card_id}' expired at ${card.expires_at}, before this trace (${trace.timestamp})`, 'timestamp'));
  }
  const { name, category, type } = trace.action;
  if (category === 'bounded' && !isBounded(name, compiled.bounded)) {
    violations.push(violation('unbounded_action', `Action '${name}' not in bounded_actions`, 'action.name'));
  }
  // §7.3: "no forbidden actions taken"; a refusal takes none.
  const forbidden = type === 'deny' ? null : forbiddenMatch(name, compiled.forbidden);
  if (forbidden !== null) {
    violations.push(violation('forbidden_action', forbidden === name ? `Action '${name}' is forbidden` : `Action '${name}' is forbidden: its part '${forbidden}' is in forbidden_actions`, 'action.name'));
  }
  return violations;
}

function valueChecks(trace: ApTrace, compiled: CompiledCard): Violation[] {
  const violations: Violation[] = [];
  trace.decision.values_applied.forEach((value, index) => {
    if (!compiled.declared.has(value)) violations.push(violation('undeclared_value', `Value '${value}' applied but not declared`, `decision.values_applied[${index}]`));
  });
  return violations;
}

function nearBoundary(trace: ApTrace): VerificationWarning[] {
  const warnings: VerificationWarning[] = [];
  trace.decision.alternatives_considered.forEach((alternative, index) => {
    const score = alternative.score;
    if (typeof score !== 'number' || Math.abs(score - DEFAULT_SIMILARITY_THRESHOLD) > NEAR_BOUNDARY_MARGIN + 1e-12) return;
    warnings.push({
      type: 'near_boundary',
      description: `Action score ${score.toFixed(2)} near boundary threshold ${DEFAULT_SIMILARITY_THRESHOLD.toFixed(2)}`,
      trace_field: `decision.alternatives_considered[${index}].score`,
    });
  });
  return warnings;
}

function recommendedAction(violations: readonly Violation[], warnings: readonly VerificationWarning[]): RecommendedAction {
  if (violations.length > 0) return 'deny';
  return warnings.length > 0 ? 'review' : 'proceed';
}

export function verifyTrace(trace: ApTrace, compiled: CompiledCard, options: VerifyOptions): VerificationResult {
  const escalation = checkEscalation(trace, compiled);
  const violations = [...structuralChecks(trace, compiled), ...escalation.violations, ...valueChecks(trace, compiled)];
  const { score: similarity, shared } = similarityToCard(trace, compiled.features);
  const warnings: VerificationWarning[] = [...nearBoundary(trace), ...escalation.warnings];
  if (violations.length === 0 && similarity < BEHAVIORAL_SIMILARITY_THRESHOLD) {
    warnings.push({
      type: 'low_behavioral_similarity',
      description: `Trace passes structural checks but similarity (${similarity.toFixed(2)}) is below threshold (${BEHAVIORAL_SIMILARITY_THRESHOLD})`,
      trace_field: null,
    });
  }
  return {
    verified: violations.length === 0,
    recommended_action: recommendedAction(violations, warnings),
    trace_id: trace.trace_id,
    card_id: compiled.card.card_id,
    timestamp: options.now.toISOString(),
    violations,
    warnings,
    similarity_score: similarity,
    verification_metadata: {
      algorithm_version: ALGORITHM_VERSION,
      checks_performed: [...CHECKS],
      similarity_details: { similarities: [similarity], mean_similarity: similarity, trend: 0, shared_features: shared },
      triggers: escalation.triggers,
    },
  };
}
