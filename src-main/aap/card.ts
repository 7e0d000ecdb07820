import { AlignmentCard, type EscalationTrigger } from '../../src-shared/aap/card.js';
import { issuesFromZod, type ValidationIssue } from '../../src-shared/aap/issues.js';
import { validateAlignmentCard, type CardValidation, type CardValidationOptions } from '../../src-shared/aap/validate-card.js';
import { compileCondition, conditionProblem, type CompiledCondition } from './conditions/index.js';
import { indexCardFeatures, type CardFeatureIndex } from './features.js';

/*
 * A card ready to verify traces against: schema-checked, every trigger's condition compiled (a
 * condition that does not parse refuses the card with the trigger's path), and the sets and
 * feature vector verification needs computed once rather than per trace.
 */

interface CompiledTrigger {
  /** `autonomy_envelope.escalation_triggers[i]` */
  path: string;
  trigger: EscalationTrigger;
  condition: CompiledCondition;
}

export interface CompiledCard {
  card: AlignmentCard;
  triggers: CompiledTrigger[];
  bounded: ReadonlySet<string>;
  forbidden: ReadonlySet<string>;
  declared: ReadonlySet<string>;
  features: CardFeatureIndex;
}

export type CardCompileResult = { ok: true; compiled: CompiledCard } | { ok: false; errors: ValidationIssue[] };

export function compileAlignmentCard(input: unknown): CardCompileResult {
  const parsed = AlignmentCard.safeParse(input);
  if (!parsed.success) return { ok: false, errors: issuesFromZod(parsed.error, input) };
  const card = parsed.data;
  const errors: ValidationIssue[] = [];
  const triggers: CompiledTrigger[] = [];
  card.autonomy_envelope.escalation_triggers.forEach((trigger, index) => {
    const path = `autonomy_envelope.escalation_triggers[${index}]`;
    const compiled = compileCondition(trigger.condition);
    if (compiled.ok) triggers.push({ path, trigger, condition: compiled.condition });
    else errors.push({ path: `${path}.condition`, message: compiled.error, expected: 'a condition in the §4.6 language, e.g. amount > 100 or action_type == "purchase"' });
  });
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    compiled: {
      card,
      triggers,
      bounded: new Set(card.autonomy_envelope.bounded_actions),
      forbidden: new Set(card.autonomy_envelope.forbidden_actions ?? []),
      declared: new Set(card.values.declared),
      features: indexCardFeatures(card),
    },
  };
}

/** Full validation (src-shared/aap/validate-card.ts) with the RE2-backed condition compiler. */
export function validateCard(input: unknown, options: Omit<CardValidationOptions, 'checkCondition'>): CardValidation {
  return validateAlignmentCard(input, { ...options, checkCondition: conditionProblem });
}
