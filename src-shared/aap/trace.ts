import { z } from 'zod';
import { DateTime } from './card.js';

/*
 * The AP-Trace of spec 003 §5, as the JSON Schema `ap-trace-v1` describes it. Like the card,
 * objects keep members the schema does not name: traces are append-only records (§5.2) and are
 * verified as written.
 */

const nullish = <T extends z.ZodType>(schema: T) => schema.nullable().optional();
/** Scores and confidence are fractions (§5.5). */
const Fraction = z.number().min(0).max(1);

export const ActionType = z.enum(['recommend', 'execute', 'escalate', 'deny']);
export type ActionType = z.infer<typeof ActionType>;
export const ActionCategory = z.enum(['bounded', 'escalation_trigger', 'forbidden']);
export type ActionCategory = z.infer<typeof ActionCategory>;
export const EscalationStatus = z.enum(['pending', 'approved', 'denied', 'timeout']);
export type EscalationStatus = z.infer<typeof EscalationStatus>;

export const ActionTarget = z.looseObject({ type: z.string(), identifier: z.string() });
export type ActionTarget = z.infer<typeof ActionTarget>;

/** §5.4 */
export const TraceAction = z.looseObject({
  type: ActionType,
  name: z.string(),
  category: ActionCategory,
  target: nullish(ActionTarget),
  parameters: nullish(z.record(z.string(), z.unknown())),
});
export type TraceAction = z.infer<typeof TraceAction>;

export const Alternative = z.looseObject({
  option_id: z.string(),
  description: z.string(),
  score: nullish(Fraction),
  scoring_factors: nullish(z.record(z.string(), z.number())),
  flags: nullish(z.array(z.string())),
});
export type Alternative = z.infer<typeof Alternative>;

/** §5.5 */
export const Decision = z.looseObject({
  alternatives_considered: z.array(Alternative).min(1),
  selected: z.string(),
  selection_reasoning: z.string(),
  values_applied: z.array(z.string()),
  confidence: nullish(Fraction),
});
export type Decision = z.infer<typeof Decision>;

export const TriggerCheck = z.looseObject({
  trigger: z.string(),
  matched: z.boolean(),
  value_observed: z.unknown().optional(),
});
export type TriggerCheck = z.infer<typeof TriggerCheck>;

export const PrincipalResponse = z.looseObject({
  decision: z.string(),
  timestamp: DateTime,
  conditions: nullish(z.array(z.string())),
});
export type PrincipalResponse = z.infer<typeof PrincipalResponse>;

/** §5.6 */
export const Escalation = z.looseObject({
  evaluated: z.boolean(),
  triggers_checked: nullish(z.array(TriggerCheck)),
  required: z.boolean(),
  reason: z.string(),
  escalation_id: nullish(z.string()),
  escalation_status: nullish(EscalationStatus),
  principal_response: nullish(PrincipalResponse),
});
export type Escalation = z.infer<typeof Escalation>;

/** §5.7 */
export const TraceContext = z.looseObject({
  session_id: nullish(z.string()),
  conversation_turn: nullish(z.number().int()),
  prior_trace_ids: nullish(z.array(z.string())),
  environment: nullish(z.record(z.string(), z.unknown())),
  metadata: nullish(z.record(z.string(), z.unknown())),
});
export type TraceContext = z.infer<typeof TraceContext>;

/** §5.3 */
export const ApTrace = z.looseObject({
  trace_id: z.string(),
  agent_id: z.string(),
  card_id: z.string(),
  timestamp: DateTime,
  action: TraceAction,
  decision: Decision,
  escalation: nullish(Escalation),
  context: nullish(TraceContext),
});
export type ApTrace = z.infer<typeof ApTrace>;
