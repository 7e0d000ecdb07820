/*
 * Constants of the Agent Alignment Protocol (spec 003). The thresholds are the calibrated values
 * of §7.4 and §8.3; the standard value identifiers are §4.4's list, the only values a card may
 * declare without defining them.
 */

/** §4.4: values every implementation knows; any other declared value MUST be defined. */
export const STANDARD_VALUES: readonly string[] = [
  'principal_benefit',
  'transparency',
  'minimal_data',
  'harm_prevention',
  'honesty',
  'user_control',
  'privacy',
  'fairness',
];

/** §8.3: drift similarity below this counts towards a sustained streak. */
export const DEFAULT_SIMILARITY_THRESHOLD = 0.3;
/** §8.3: consecutive low-similarity traces that make a drift alert. */
export const DEFAULT_SUSTAINED_TURNS_THRESHOLD = 3;
/** §7.4 and §8.3: a structurally valid trace below this draws `low_behavioral_similarity`. */
export const BEHAVIORAL_SIMILARITY_THRESHOLD = 0.5;
/** §8.3: a pair below this coherence score does not proceed automatically. */
export const MIN_COHERENCE_FOR_PROCEED = 0.7;
/**
 * §7.4's `near_boundary` example flags an alternative scored 0.31 against the 0.30 boundary; an
 * alternative within this distance of the boundary is flagged (0.45 is not, per the vectors).
 */
export const NEAR_BOUNDARY_MARGIN = 0.05;
/** The drift feature algorithm whose goldens the conformance data publishes. */
export const ALGORITHM_VERSION = '1.2.0';

/** §7.5, with the severities the vectors spell in lower case. */
export const VIOLATION_SEVERITY = {
  unbounded_action: 'high',
  forbidden_action: 'critical',
  missed_escalation: 'high',
  undeclared_value: 'medium',
  card_expired: 'high',
  card_mismatch: 'critical',
} as const;
