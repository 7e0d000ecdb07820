/*
 * What every file of ../shared/conformance/aap must produce, as data. Numbers, verdicts and
 * directions come from the README's "Expected outputs" tables (never from the vectors' own
 * `_expected_result`, which the README calls partly stale); schema verdicts from its "Schema
 * check" note; the stricter spec-rule verdicts (definitions of custom values, query endpoints,
 * conditions that parse) from spec 003 §4 as docs/conformance.md records.
 */

export interface VerifyExpectation {
  kind: 'verify';
  verified: boolean;
  /** Violation types with repetitions, in order. */
  violations: string[];
  warnings: string[];
  similarity: number;
  /** Text a violation's description must contain / must not contain. */
  descriptionContains?: string;
  descriptionLacks?: string;
}

export interface DriftExpectation {
  kind: 'drift';
  /** Relative path of the card when the file holds only traces. */
  card?: string;
  baseline: number;
  /** Per-trace similarity after the baseline, 4 dp; omitted when the README gives none. */
  similarities?: number[];
  alerts: { index: number; traceIds: string[]; score: number; direction: string; indicators?: { indicator: string; baseline: number; current: number }[] }[];
}

export interface CoherenceExpectation {
  kind: 'coherence';
  id: string;
  /** Relative paths; absent for the playground file, which holds `my_card` and `their_card`. */
  initiator?: string;
  responder?: string;
  score: number;
  compatible: boolean;
  conflicts: number;
  conflictDescriptions?: string[];
  /** A recorded output to compare with (examples/alignment-failure/coherence-result.json). */
  recorded?: string;
}

/** A card's two verdicts: against the JSON Schema, and against every rule of spec §4 (error paths). */
export interface CardExpectation {
  kind: 'card';
  /** Where the card sits in the file, e.g. `my_card`; default: the file's card (bare, `alignment` or `card`). */
  member?: string;
  schemaValid: boolean;
  /** Paths of the errors full validation reports; [] for a valid card. */
  errorPaths: string[];
}

export interface TracesExpectation {
  kind: 'traces';
  count: number;
}

/** A trace recording a coherence outcome: its `delegate` option's score is the coherence of the two cards. */
export interface RecordedCoherenceExpectation {
  kind: 'recorded-coherence';
  initiator: string;
  responder: string;
  option: string;
}

interface SchemaExpectation {
  kind: 'schema';
}

interface SkipExpectation {
  kind: 'skip';
  reason: string;
}

export type Expectation = VerifyExpectation | DriftExpectation | CoherenceExpectation | CardExpectation | TracesExpectation | RecordedCoherenceExpectation | SchemaExpectation | SkipExpectation;

const CALIBRATION = 'calibration evidence (self-similarity matrices of the private Braid corpus): no expected output to check';
const PLAYGROUND_CARD_NO_ENDPOINT = ['card.audit_commitment.query_endpoint'];

export const EXPECTED: Readonly<Record<string, readonly Expectation[]>> = {
  'schemas/alignment-card.schema.json': [{ kind: 'schema' }],
  'schemas/ap-trace.schema.json': [{ kind: 'schema' }],
  'schemas/value-coherence.schema.json': [{ kind: 'schema' }],

  'vectors/valid_traces/compliant_recommendation.json': [
    { kind: 'card', schemaValid: true, errorPaths: [] },
    { kind: 'traces', count: 1 },
    { kind: 'verify', verified: true, violations: [], warnings: ['low_behavioral_similarity'], similarity: 0.3642 },
  ],
  'vectors/valid_traces/approved_escalation.json': [
    { kind: 'card', schemaValid: true, errorPaths: [] },
    { kind: 'traces', count: 1 },
    { kind: 'verify', verified: true, violations: [], warnings: ['near_boundary', 'low_behavioral_similarity'], similarity: 0.1885 },
  ],
  'vectors/invalid_traces/forbidden_action.json': [
    { kind: 'card', schemaValid: true, errorPaths: [] },
    { kind: 'traces', count: 1 },
    { kind: 'verify', verified: false, violations: ['forbidden_action'], warnings: [], similarity: 0.121, descriptionContains: 'delete_data' },
  ],
  'vectors/invalid_traces/missed_escalation.json': [
    { kind: 'card', schemaValid: true, errorPaths: [] },
    { kind: 'traces', count: 1 },
    { kind: 'verify', verified: false, violations: ['missed_escalation'], warnings: [], similarity: 0.1133, descriptionContains: 'amount > 50', descriptionLacks: 'purchase' },
  ],
  'vectors/invalid_traces/undeclared_value.json': [
    { kind: 'card', schemaValid: true, errorPaths: [] },
    { kind: 'traces', count: 1 },
    { kind: 'verify', verified: false, violations: ['undeclared_value', 'undeclared_value'], warnings: [], similarity: 0.1138, descriptionContains: 'profit_maximization' },
  ],
  'vectors/drift_cases/value_drift_sequence.json': [
    { kind: 'card', schemaValid: true, errorPaths: [] },
    { kind: 'traces', count: 10 },
    {
      kind: 'drift',
      baseline: 3,
      similarities: [0.9417, 0.9858, 0.9416, 0.2304, 0.2194, 0.2332, 0.2079],
      alerts: [{ index: 8, traceIds: ['tr-drift-v-006', 'tr-drift-v-007', 'tr-drift-v-008'], score: 0.2332, direction: 'unknown' }],
    },
  ],
  'vectors/drift_cases/autonomy_expansion_sequence.json': [
    { kind: 'card', schemaValid: true, errorPaths: [] },
    { kind: 'traces', count: 10 },
    {
      kind: 'drift',
      baseline: 3,
      similarities: [0.7669, 0.8979, 0.8104, 0.2261, 0.0907, 0.081, 0.074],
      alerts: [
        {
          index: 8,
          traceIds: ['tr-drift-a-006', 'tr-drift-a-007', 'tr-drift-a-008'],
          score: 0.081,
          direction: 'autonomy_expansion',
          indicators: [
            { indicator: 'escalation_rate_change', baseline: 1, current: 0 },
            { indicator: 'similarity_trend', baseline: 0.2261, current: 0.081 },
          ],
        },
      ],
    },
  ],

  'playground/compliant-trace.json': [
    { kind: 'card', schemaValid: true, errorPaths: PLAYGROUND_CARD_NO_ENDPOINT },
    { kind: 'traces', count: 1 },
    { kind: 'verify', verified: true, violations: [], warnings: ['low_behavioral_similarity'], similarity: 0.2657 },
  ],
  'playground/forbidden-action.json': [
    { kind: 'card', schemaValid: true, errorPaths: PLAYGROUND_CARD_NO_ENDPOINT },
    { kind: 'traces', count: 1 },
    { kind: 'verify', verified: false, violations: ['forbidden_action'], warnings: [], similarity: 0.1088, descriptionContains: 'auto_purchase' },
  ],
  'playground/value-drift.json': [
    { kind: 'card', schemaValid: true, errorPaths: ['card.values.declared[2]', 'card.audit_commitment.query_endpoint'] },
    { kind: 'traces', count: 6 },
    { kind: 'drift', baseline: 3, similarities: [0.8417, 0.6224, 0.6158], alerts: [] },
  ],
  'playground/coherence-conflict.json': [
    { kind: 'card', member: 'my_card', schemaValid: false, errorPaths: ['my_card.issued_at', 'my_card.autonomy_envelope.escalation_triggers', 'my_card.audit_commitment'] },
    { kind: 'card', member: 'their_card', schemaValid: false, errorPaths: ['their_card.issued_at', 'their_card.principal.relationship', 'their_card.autonomy_envelope.escalation_triggers', 'their_card.audit_commitment'] },
    { kind: 'coherence', id: 'coherence', score: 0, compatible: false, conflicts: 4 },
  ],

  'examples/a2a-integration/user-agent-card.json': [
    { kind: 'card', schemaValid: true, errorPaths: [] },
    { kind: 'coherence', id: 'coherence-vendor', initiator: 'examples/a2a-integration/user-agent-card.json', responder: 'examples/a2a-integration/vendor-agent-card.json', score: 0.1327, compatible: false, conflicts: 1, conflictDescriptions: ["Responder's 'upselling' is in initiator's conflicts_with"] },
    { kind: 'coherence', id: 'coherence-compatible-vendor', initiator: 'examples/a2a-integration/user-agent-card.json', responder: 'examples/a2a-integration/compatible-vendor-card.json', score: 1, compatible: true, conflicts: 0 },
  ],
  'examples/a2a-integration/vendor-agent-card.json': [{ kind: 'card', schemaValid: true, errorPaths: ['alignment.values.declared[0]', 'alignment.values.declared[2]', 'alignment.values.declared[3]'] }],
  'examples/a2a-integration/compatible-vendor-card.json': [{ kind: 'card', schemaValid: true, errorPaths: [] }],
  'examples/a2a-integration/delegation-approved-trace.json': [
    { kind: 'traces', count: 1 },
    { kind: 'recorded-coherence', initiator: 'examples/a2a-integration/user-agent-card.json', responder: 'examples/a2a-integration/compatible-vendor-card.json', option: 'delegate' },
  ],
  'examples/a2a-integration/delegation-rejected-trace.json': [
    { kind: 'traces', count: 1 },
    { kind: 'recorded-coherence', initiator: 'examples/a2a-integration/user-agent-card.json', responder: 'examples/a2a-integration/vendor-agent-card.json', option: 'delegate' },
  ],

  'examples/alignment-failure/user-agent-card.json': [
    { kind: 'card', schemaValid: true, errorPaths: ['values.declared[3]'] },
    {
      kind: 'coherence',
      id: 'coherence-vendor',
      initiator: 'examples/alignment-failure/user-agent-card.json',
      responder: 'examples/alignment-failure/vendor-agent-card.json',
      score: 0,
      compatible: false,
      conflicts: 2,
      recorded: 'examples/alignment-failure/coherence-result.json',
    },
  ],
  'examples/alignment-failure/vendor-agent-card.json': [{ kind: 'card', schemaValid: true, errorPaths: ['values.declared[0]', 'values.declared[1]', 'values.declared[2]', 'values.declared[3]'] }],
  'examples/alignment-failure/coherence-result.json': [{ kind: 'skip', reason: 'a recorded coherence output; compared in the user-agent-card coherence case' }],
  'examples/alignment-failure/drift-traces.json': [
    { kind: 'traces', count: 5 },
    { kind: 'drift', card: 'examples/alignment-failure/user-agent-card.json', baseline: 3, alerts: [] },
  ],

  'examples/eu-compliance/alignment-card.json': [{ kind: 'card', schemaValid: false, errorPaths: ['values.definitions.transparency.name', 'values.definitions.user_control.name'] }],
  'examples/mcp-integration/server-alignment-card.json': [{ kind: 'card', schemaValid: true, errorPaths: ['autonomy_envelope.escalation_triggers[1].condition'] }],
  'examples/mcp-integration/tool-invocation-traces.json': [{ kind: 'traces', count: 4 }],
  'examples/simple-agent/alignment-card.json': [{ kind: 'card', schemaValid: true, errorPaths: [] }],

  'calibration/calibration-ssm-braid-alignment.json': [{ kind: 'skip', reason: CALIBRATION }],
  'calibration/calibration-ssm-convergent.json': [{ kind: 'skip', reason: CALIBRATION }],
  'calibration/calibration-ssm-elenchus.json': [{ kind: 'skip', reason: CALIBRATION }],
  'calibration/calibration-ssm-implementation.json': [{ kind: 'skip', reason: CALIBRATION }],
};
