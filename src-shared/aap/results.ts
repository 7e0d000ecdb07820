import { z } from 'zod';
import { ValueConflict, ProposedResolution } from './messages.js';

/*
 * What verification (§7.4), coherence checking (§6.4) and drift detection (§8.4) produce. These
 * cross the control plane to the cockpit's Alignment page, so they are zod schemas too.
 */

const ViolationType = z.enum(['unbounded_action', 'forbidden_action', 'missed_escalation', 'undeclared_value', 'card_expired', 'card_mismatch']);
const Severity = z.enum(['critical', 'high', 'medium', 'low']);

/** §7.5 */
export const Violation = z.object({
  type: ViolationType,
  severity: Severity,
  description: z.string(),
  /** The JSON path in the trace (or card) that shows the violation. */
  trace_field: z.string().nullable(),
});
export type Violation = z.infer<typeof Violation>;

/** Warning types: the two of §7.4, plus a currency the card's limit cannot be compared with. */
const WarningType = z.enum(['low_behavioral_similarity', 'near_boundary', 'currency_mismatch']);

export const VerificationWarning = z.object({
  type: WarningType,
  description: z.string(),
  trace_field: z.string().nullable(),
});
export type VerificationWarning = z.infer<typeof VerificationWarning>;

export const RecommendedAction = z.enum(['proceed', 'review', 'deny']);
export type RecommendedAction = z.infer<typeof RecommendedAction>;

export const CheckName = z.enum(['card_reference', 'card_expiry', 'autonomy', 'forbidden', 'escalation', 'values', 'behavioral_similarity']);
export type CheckName = z.infer<typeof CheckName>;

/** One escalation trigger (or the card's value limit) and what it required of this trace. */
export const TriggerOutcome = z.object({
  /** `autonomy_envelope.escalation_triggers[i]`, or `autonomy_envelope.max_autonomous_value`. */
  source: z.string(),
  condition: z.string(),
  action: z.enum(['escalate', 'deny', 'log']),
  matched: z.boolean(),
  /** Whether the trace did what a matched trigger requires (always true when not matched). */
  satisfied: z.boolean(),
});
export type TriggerOutcome = z.infer<typeof TriggerOutcome>;

const SimilarityDetails = z.object({
  similarities: z.array(z.number()),
  mean_similarity: z.number(),
  trend: z.number(),
  /** The feature keys trace and card share: what the score is made of. */
  shared_features: z.array(z.string()),
});

const VerificationMetadata = z.object({
  algorithm_version: z.string(),
  checks_performed: z.array(CheckName),
  similarity_details: SimilarityDetails,
  triggers: z.array(TriggerOutcome),
});

/** §7.4 */
export const VerificationResult = z.object({
  verified: z.boolean(),
  recommended_action: RecommendedAction,
  trace_id: z.string(),
  card_id: z.string(),
  timestamp: z.string(),
  violations: z.array(Violation),
  warnings: z.array(VerificationWarning),
  similarity_score: z.number(),
  verification_metadata: VerificationMetadata,
});
export type VerificationResult = z.infer<typeof VerificationResult>;

/** §8.5's categories; `unknown` when no indicator decides. */
export const DriftDirection = z.enum(['autonomy_expansion', 'value_drift', 'principal_misalignment', 'communication_drift', 'unknown']);
export type DriftDirection = z.infer<typeof DriftDirection>;

export const DriftIndicator = z.object({ indicator: z.string(), baseline: z.number(), current: z.number(), description: z.string() });
export type DriftIndicator = z.infer<typeof DriftIndicator>;

/** §8.4 */
export const DriftAlert = z.object({
  alert_type: z.literal('drift_detected'),
  agent_id: z.string(),
  card_id: z.string(),
  detection_timestamp: z.string(),
  analysis: z.object({
    similarity_score: z.number(),
    sustained_traces: z.number().int(),
    threshold: z.number(),
    drift_direction: DriftDirection,
    specific_indicators: z.array(DriftIndicator),
  }),
  recommendation: z.string(),
  trace_ids: z.array(z.string()),
});
export type DriftAlert = z.infer<typeof DriftAlert>;

/** §6.4: the coherence of two cards, the body of a `coherence_result` message and more. */
export const CoherenceResult = z.object({
  compatible: z.boolean(),
  score: z.number().min(0).max(1),
  value_alignment: z.object({ matched: z.array(z.string()), unmatched: z.array(z.string()), conflicts: z.array(ValueConflict) }),
  proceed: z.boolean(),
  conditions: z.array(z.string()),
  proposed_resolution: ProposedResolution.nullable(),
});
export type CoherenceResult = z.infer<typeof CoherenceResult>;
