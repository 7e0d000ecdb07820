import { z } from 'zod';

/*
 * The Alignment Card of spec 003 §4, as the JSON Schema `alignment-card-v1` describes it
 * (conformance/aap/schemas). Objects keep members the schema does not name, because the schema
 * allows them and a signature (§9.2) covers the card as written. Rules the schema cannot state —
 * definitions of custom values, expiry, conditions that parse — are in validate-card.ts.
 */

/** A member the schema types as `X | null` with default null: absent, null or X. */
const nullish = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** RFC 3339 date-time with an offset, as JSON Schema's `format: date-time`. */
export const DateTime = z.iso.datetime({ offset: true });

export const PrincipalType = z.enum(['human', 'organization', 'agent', 'unspecified']);
export type PrincipalType = z.infer<typeof PrincipalType>;
export const RelationshipType = z.enum(['delegated_authority', 'advisory', 'autonomous']);
export type RelationshipType = z.infer<typeof RelationshipType>;
export const HierarchyType = z.enum(['lexicographic', 'weighted', 'contextual']);
export type HierarchyType = z.infer<typeof HierarchyType>;
export const TriggerAction = z.enum(['escalate', 'deny', 'log']);
export type TriggerAction = z.infer<typeof TriggerAction>;
export const TamperEvidence = z.enum(['append_only', 'signed', 'merkle']);
export type TamperEvidence = z.infer<typeof TamperEvidence>;
export const StorageType = z.enum(['local', 'remote', 'distributed']);
export type StorageType = z.infer<typeof StorageType>;

/** §4.3 */
export const Principal = z.looseObject({
  type: PrincipalType,
  identifier: nullish(z.string()),
  relationship: RelationshipType,
  escalation_contact: nullish(z.string()),
});
export type Principal = z.infer<typeof Principal>;

/** §4.4: what a custom value means operationally. */
export const ValueDefinition = z.looseObject({
  name: z.string(),
  description: z.string(),
  priority: z.number().int().optional(),
});
export type ValueDefinition = z.infer<typeof ValueDefinition>;

/** §4.4 */
export const Values = z.looseObject({
  declared: z.array(z.string()),
  definitions: nullish(z.record(z.string(), ValueDefinition)),
  conflicts_with: nullish(z.array(z.string())),
  hierarchy: nullish(HierarchyType),
});
export type Values = z.infer<typeof Values>;

/** §4.5: a condition (§4.6 language) and what to do when it holds. */
export const EscalationTrigger = z.looseObject({
  condition: z.string(),
  action: TriggerAction,
  reason: z.string(),
});
export type EscalationTrigger = z.infer<typeof EscalationTrigger>;

export const MonetaryValue = z.looseObject({
  amount: z.number(),
  currency: z.string().optional(),
});
export type MonetaryValue = z.infer<typeof MonetaryValue>;

/** §4.5 */
export const AutonomyEnvelope = z.looseObject({
  bounded_actions: z.array(z.string()),
  escalation_triggers: z.array(EscalationTrigger),
  max_autonomous_value: nullish(MonetaryValue),
  forbidden_actions: nullish(z.array(z.string())),
});
export type AutonomyEnvelope = z.infer<typeof AutonomyEnvelope>;

export const AuditStorage = z.looseObject({
  type: StorageType,
  location: nullish(z.string()),
});
export type AuditStorage = z.infer<typeof AuditStorage>;

/** §4.7 */
export const AuditCommitment = z.looseObject({
  trace_format: z.string().optional(),
  retention_days: z.number().int().min(1),
  storage: nullish(AuditStorage),
  queryable: z.boolean(),
  query_endpoint: nullish(z.string()),
  tamper_evidence: nullish(TamperEvidence),
});
export type AuditCommitment = z.infer<typeof AuditCommitment>;

/** §4.2 */
export const AlignmentCard = z.looseObject({
  aap_version: z.string().optional(),
  card_id: z.string(),
  agent_id: z.string(),
  issued_at: DateTime,
  expires_at: nullish(DateTime),
  principal: Principal,
  values: Values,
  autonomy_envelope: AutonomyEnvelope,
  audit_commitment: AuditCommitment,
  extensions: nullish(z.record(z.string(), z.unknown())),
});
export type AlignmentCard = z.infer<typeof AlignmentCard>;
