import { z } from 'zod';
import * as card from '../../../src-shared/aap/card.js';
import * as messages from '../../../src-shared/aap/messages.js';
import * as trace from '../../../src-shared/aap/trace.js';

/*
 * Our zod models against the published JSON Schemas: every definition the schema has must exist
 * here with the same members, the same required members and the same enum values. Extra
 * constraints we add (literal `message_type`s, the scores' 0–1 range) are not compared.
 */

type Models = Readonly<Record<string, z.ZodType>>;

const MODELS: Readonly<Record<string, Models>> = {
  'alignment-card-v1': {
    $root: card.AlignmentCard,
    AuditCommitment: card.AuditCommitment,
    AuditStorage: card.AuditStorage,
    AutonomyEnvelope: card.AutonomyEnvelope,
    EscalationTrigger: card.EscalationTrigger,
    HierarchyType: card.HierarchyType,
    MonetaryValue: card.MonetaryValue,
    Principal: card.Principal,
    PrincipalType: card.PrincipalType,
    RelationshipType: card.RelationshipType,
    StorageType: card.StorageType,
    TamperEvidence: card.TamperEvidence,
    TriggerAction: card.TriggerAction,
    ValueDefinition: card.ValueDefinition,
    Values: card.Values,
  },
  'ap-trace-v1': {
    $root: trace.ApTrace,
    Action: trace.TraceAction,
    ActionCategory: trace.ActionCategory,
    ActionTarget: trace.ActionTarget,
    ActionType: trace.ActionType,
    Alternative: trace.Alternative,
    Decision: trace.Decision,
    Escalation: trace.Escalation,
    EscalationStatus: trace.EscalationStatus,
    PrincipalResponse: trace.PrincipalResponse,
    TraceContext: trace.TraceContext,
    TriggerCheck: trace.TriggerCheck,
  },
  'value-coherence-v1': {
    RequesterInfo: messages.RequesterInfo,
    TaskContext: messages.TaskContext,
    AlignmentCardRequest: messages.AlignmentCardRequest,
    Signature: messages.MessageSignature,
    AlignmentCardResponse: messages.AlignmentCardResponse,
    AutonomyScope: messages.AutonomyScope,
    DataSharing: messages.DataSharing,
    ProposedCollaboration: messages.ProposedCollaboration,
    ValueCoherenceCheck: messages.ValueCoherenceCheck,
    Coherence: messages.Coherence,
    ProposedResolution: messages.ProposedResolution,
    ValueAlignmentDetail: messages.ValueAlignmentDetail,
    ValueConflict: messages.ValueConflict,
    CoherenceResultMessage: messages.CoherenceResultMessage,
  },
};

interface JsonSchemaDef {
  enum?: unknown[];
  properties?: Record<string, unknown>;
  required?: string[];
}

const sameSet = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((x) => b.includes(x));

function compare(name: string, reference: JsonSchemaDef, model: z.ZodType): string[] {
  const problems: string[] = [];
  if (reference.enum) {
    if (!(model instanceof z.ZodEnum)) return [`${name}: the schema has an enum; our model is not one`];
    if (!sameSet(reference.enum, model.options)) problems.push(`${name}: enum ${JSON.stringify(reference.enum)} ≠ ours ${JSON.stringify(model.options)}`);
    return problems;
  }
  if (!reference.properties) return problems;
  if (!(model instanceof z.ZodObject)) return [`${name}: the schema has an object; our model is not one`];
  const shape = model.shape as Record<string, z.ZodType>;
  const theirs = Object.keys(reference.properties);
  const ours = Object.keys(shape);
  for (const key of theirs) if (!ours.includes(key)) problems.push(`${name}.${key}: in the schema, not in our model`);
  for (const key of ours) if (!theirs.includes(key)) problems.push(`${name}.${key}: in our model, not in the schema`);
  const required = ours.filter((key) => !shape[key]!.safeParse(undefined).success);
  if (!sameSet(required, reference.required ?? [])) problems.push(`${name}: required ${JSON.stringify(reference.required ?? [])} ≠ ours ${JSON.stringify(required)}`);
  return problems;
}

/** Problems found comparing `schema` (a parsed JSON Schema) with our models; [] when they agree. */
export function schemaDisagreements(schema: unknown): string[] {
  const document = schema as { $id?: string; $defs?: Record<string, JsonSchemaDef> } & JsonSchemaDef;
  const id = /\/([a-z-]+-v\d+)\.json$/.exec(document.$id ?? '')?.[1];
  const models = id ? MODELS[id] : undefined;
  if (!models) return [`unknown schema ${JSON.stringify(document.$id)}`];
  const problems: string[] = [];
  if (models.$root) problems.push(...compare('(root)', document, models.$root));
  for (const [name, definition] of Object.entries(document.$defs ?? {})) {
    const model = models[name];
    if (!model) problems.push(`${name}: defined by the schema, no model here`);
    else problems.push(...compare(name, definition, model));
  }
  return problems;
}
