import { z } from 'zod';
import { JsonObject } from '../schemas/json.js';

/**
 * Gate models of spec 002 §3.4. Field names keep the spec's snake_case: gates are written in plan
 * front matter and are part of the plan hash, so the parsed object must carry exactly the spec's
 * names. Optional fields default to `null` (not absent) so that a plan that omits a field and one
 * that writes `field: null` parse to the same object and hash to the same bytes.
 */

const GateType = z.enum(['numeric_range', 'string_match', 'regex', 'file_valid', 'approval_always', 'custom_check']);

export const GateLane = z.enum(['policy', 'quality']);
export type GateLane = z.infer<typeof GateLane>;

export const GateProvider = z.enum(['guardrails_ai', 'predicate', 'llm', 'script', 'custom']);
export type GateProvider = z.infer<typeof GateProvider>;

export const GateTrigger = z.enum(['every_user_message', 'every_agent_response', 'after_step', 'on_tool_call']);
export type GateTrigger = z.infer<typeof GateTrigger>;

export const GateAction = z.enum(['continue', 'block', 'require_approval']);
export type GateAction = z.infer<typeof GateAction>;

/**
 * The only top-level context keys a gate may rewrite (§3.4 `ALLOWED_MUTATIONS`). Everything else in
 * the evaluation context (approval token, budget, access level, …) is out of a gate's reach.
 */
export const ALLOWED_MUTATIONS = Object.freeze(['response', 'message', 'tool_args'] as const);
export type AllowedMutation = (typeof ALLOWED_MUTATIONS)[number];

/** Gate names are referenced by access levels and written to the audit log, so they stay plain identifiers. */
export const GateName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'gate names are letters, digits, "_", "." and "-" (e.g. "identity_verified")');
export type GateName = z.infer<typeof GateName>;

const FiniteNumber = z.number().refine(Number.isFinite, 'must be a finite number');

/** `{min, max}` with min <= max, both inclusive (§3.4 `auto_approve` / `require_approval`). */
const NumericRange = z
  .object({ min: FiniteNumber, max: FiniteNumber })
  .strict()
  .refine((range) => range.min <= range.max, { message: 'min must not be greater than max', path: ['min'] });

/** `{outside: [low, high]}`: values below low or above high are blocked before any other range is consulted. */
const BlockRange = z
  .object({ outside: z.tuple([FiniteNumber, FiniteNumber]) })
  .strict()
  .refine((range) => range.outside[0] <= range.outside[1], { message: 'outside must be [low, high] with low <= high', path: ['outside'] });

const EXPECTATION_FIELDS = ['exit_code', 'equals', 'contains', 'regex', 'output_lt', 'output_gt', 'file_exists', 'not_empty'] as const;

/**
 * The success predicate of a `custom_check` gate (§3.3 Expectation: exactly one field set).
 * Same rules as `Expectation` in work.ts; defined here rather than imported because work.ts imports
 * `Gate`, and a zod schema cycle between two modules fails at load time in one of the import orders.
 */
export const GateExpectation = z
  .object({
    exit_code: z.number().int().nullable().default(null),
    equals: z.string().nullable().default(null),
    contains: z.string().nullable().default(null),
    regex: z.string().max(2000).nullable().default(null),
    output_lt: FiniteNumber.nullable().default(null),
    output_gt: FiniteNumber.nullable().default(null),
    file_exists: z
      .string()
      .min(1)
      .max(4096)
      .refine((path) => !path.includes('..') && !path.includes('\0'), 'paths containing ".." or NUL are not allowed')
      .nullable()
      .default(null),
    not_empty: z.boolean().nullable().default(null),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.not_empty === false) {
      ctx.addIssue({ code: 'custom', path: ['not_empty'], message: 'not_empty: false checks nothing; write not_empty: true or choose another predicate' });
      return;
    }
    const set = EXPECTATION_FIELDS.filter((field) => value[field] !== null);
    if (set.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          set.length === 0
            ? `exactly one predicate is required, none given; use one of: ${EXPECTATION_FIELDS.join(', ')}`
            : `exactly one predicate is allowed, ${set.length} given (${set.join(', ')})`,
      });
    }
  });
export type GateExpectation = z.infer<typeof GateExpectation>;

/** §3.4 Gate. Unknown fields are refused so that a typo in a plan never silently disables a check. */
export const Gate = z
  .object({
    name: GateName,
    on: GateTrigger,
    after_step: z.number().int().min(0).nullable().default(null),
    provider: GateProvider.default('predicate'),
    type: GateType.default('string_match'),
    check: z.string().min(1).max(4096).nullable().default(null),
    config: JsonObject.default({}),
    extract: z
      .string()
      .min(1)
      .max(256)
      .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, 'extract is a context key or a dotted path such as "tool_args.position_usd"')
      .nullable()
      .default(null),
    auto_approve: NumericRange.nullable().default(null),
    require_approval: NumericRange.nullable().default(null),
    block: BlockRange.nullable().default(null),
    allowed_values: z.array(z.string().max(4096)).max(1000).nullable().default(null),
    approval_values: z.array(z.string().max(4096)).max(1000).nullable().default(null),
    on_block: z.string().min(1).max(128).default('report'),
    check_command: z.string().min(1).max(4096).nullable().default(null),
    check_expect: GateExpectation.nullable().default(null),
    promote_to_policy: z.boolean().default(false),
  })
  .strict()
  .superRefine((gate, ctx) => {
    if (gate.on === 'after_step' && gate.after_step === null) {
      ctx.addIssue({ code: 'custom', path: ['after_step'], message: 'a gate with on: after_step needs after_step: <step number>' });
    }
    if (gate.on !== 'after_step' && gate.after_step !== null) {
      ctx.addIssue({ code: 'custom', path: ['after_step'], message: `after_step only applies to on: after_step (this gate fires on ${gate.on}); remove it` });
    }
  });
export type Gate = z.infer<typeof Gate>;
export type GateInput = z.input<typeof Gate>;

/** The value a gate checked, as recorded in its result. */
const GateValue = z.union([z.string(), FiniteNumber]).nullable();

/** Advisory quality-lane flags such as "off_topic" or "llm_error". */
export const GateFlag = z.string().min(1).max(64);

/** §3.4 GateResult. Quality-lane results only ever carry `continue` (the runner enforces it). */
export const GateResult = z
  .object({
    gate_name: GateName,
    lane: GateLane,
    action: GateAction,
    reason: z.string().max(4000),
    value: GateValue.default(null),
    score: z.number().min(0).max(1).nullable().default(null),
    flags: z.array(GateFlag).max(32).default([]),
    modified_context: JsonObject.nullable().default(null),
  })
  .strict();
export type GateResult = z.infer<typeof GateResult>;
export type GateResultInput = z.input<typeof GateResult>;

/** The evaluation context a gate sees: the message or response, tool name and arguments, extracted step values. */
export type GateContext = JsonObject;

/** §3.4: the lane follows from the provider; only an `llm` gate can be promoted to the policy lane. */
export function laneOf(gate: Pick<Gate, 'provider' | 'promote_to_policy'>): GateLane {
  return gate.provider === 'llm' && !gate.promote_to_policy ? 'quality' : 'policy';
}

export function isAllowedMutation(key: string): key is AllowedMutation {
  return (ALLOWED_MUTATIONS as readonly string[]).includes(key);
}
