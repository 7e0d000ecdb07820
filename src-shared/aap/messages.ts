import { z } from 'zod';
import { DateTime } from './card.js';

/*
 * The four Value Coherence Handshake messages of spec 003 §6.3, as the JSON Schema
 * `value-coherence-v1` describes them. The schema leaves `message_type` and `timestamp` optional;
 * the handshake itself (src-main/aap/handshake.ts) refuses a message without them, because §9.4
 * makes a unique `request_id` and a `timestamp` the replay protection.
 */

const nullish = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const RequesterInfo = z.looseObject({ agent_id: z.string(), card_id: z.string() });
export type RequesterInfo = z.infer<typeof RequesterInfo>;

export const TaskContext = z.looseObject({
  task_type: z.string(),
  values_required: nullish(z.array(z.string())),
  data_categories: nullish(z.array(z.string())),
});
export type TaskContext = z.infer<typeof TaskContext>;

/** §6.3.1 */
export const AlignmentCardRequest = z.looseObject({
  message_type: z.literal('alignment_card_request').optional(),
  request_id: z.string(),
  requester: RequesterInfo,
  task_context: nullish(TaskContext),
  timestamp: DateTime.optional(),
});
export type AlignmentCardRequest = z.infer<typeof AlignmentCardRequest>;

export const MessageSignature = z.looseObject({ algorithm: z.string(), value: z.string(), key_id: z.string() });
export type MessageSignature = z.infer<typeof MessageSignature>;

/** §6.3.2: the card travels as an object; the receiver validates it as an Alignment Card. */
export const AlignmentCardResponse = z.looseObject({
  message_type: z.literal('alignment_card_response').optional(),
  request_id: z.string(),
  alignment_card: z.record(z.string(), z.unknown()),
  signature: nullish(MessageSignature),
  timestamp: DateTime.optional(),
});
export type AlignmentCardResponse = z.infer<typeof AlignmentCardResponse>;

export const DataSharing = z.looseObject({ from_initiator: z.array(z.string()).optional(), from_responder: z.array(z.string()).optional() });
export const AutonomyScope = z.looseObject({ initiator_actions: z.array(z.string()).optional(), responder_actions: z.array(z.string()).optional() });

export const ProposedCollaboration = z.looseObject({
  task_type: z.string(),
  values_intersection: nullish(z.array(z.string())),
  data_sharing: nullish(DataSharing),
  autonomy_scope: nullish(AutonomyScope),
});
export type ProposedCollaboration = z.infer<typeof ProposedCollaboration>;

/** §6.3.3 */
export const ValueCoherenceCheck = z.looseObject({
  message_type: z.literal('value_coherence_check').optional(),
  request_id: z.string(),
  initiator_card_id: z.string(),
  responder_card_id: z.string(),
  proposed_collaboration: ProposedCollaboration,
  timestamp: DateTime.optional(),
});
export type ValueCoherenceCheck = z.infer<typeof ValueCoherenceCheck>;

export const ValueConflict = z.looseObject({
  initiator_value: z.string(),
  responder_value: z.string(),
  conflict_type: z.string(),
  description: z.string(),
});
export type ValueConflict = z.infer<typeof ValueConflict>;

export const ValueAlignmentDetail = z.looseObject({
  matched: z.array(z.string()).optional(),
  unmatched: z.array(z.string()).optional(),
  conflicts: z.array(ValueConflict).optional(),
});
export type ValueAlignmentDetail = z.infer<typeof ValueAlignmentDetail>;

export const Coherence = z.looseObject({
  compatible: z.boolean(),
  score: z.number().min(0).max(1),
  value_alignment: ValueAlignmentDetail,
});
export type Coherence = z.infer<typeof Coherence>;

export const ProposedResolution = z.looseObject({
  type: z.string(),
  reason: z.string(),
  alternative: nullish(z.record(z.string(), z.unknown())),
});
export type ProposedResolution = z.infer<typeof ProposedResolution>;

/** §6.3.4 */
export const CoherenceResultMessage = z.looseObject({
  message_type: z.literal('coherence_result').optional(),
  request_id: z.string(),
  coherence: Coherence,
  proceed: z.boolean(),
  conditions: nullish(z.array(z.string())),
  proposed_resolution: nullish(ProposedResolution),
  timestamp: DateTime.optional(),
});
export type CoherenceResultMessage = z.infer<typeof CoherenceResultMessage>;

/** Any handshake message, told apart by its `message_type` (the schema's `oneOf`). */
export const ValueCoherenceMessage = z.discriminatedUnion('message_type', [
  AlignmentCardRequest.extend({ message_type: z.literal('alignment_card_request') }),
  AlignmentCardResponse.extend({ message_type: z.literal('alignment_card_response') }),
  ValueCoherenceCheck.extend({ message_type: z.literal('value_coherence_check') }),
  CoherenceResultMessage.extend({ message_type: z.literal('coherence_result') }),
]);
export type ValueCoherenceMessage = z.infer<typeof ValueCoherenceMessage>;
