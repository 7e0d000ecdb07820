import { z } from 'zod';
import { ExecutorAgentOutput, TaintLevel } from './execution.js';
import { JsonObject } from '../schemas/json.js';
import { InteractionMode, WorkItemId } from './work.js';

/**
 * Agent output models of spec 002 §3.2 (AgentResponse, PlanAction, MemoryOp, MemoryQuery,
 * RouteDecision), §5.7 (the scorer's ScorerOutput) and §7 (which agent returns what), plus the
 * interaction settings of §0.5.7/§11. These are what a model must produce, so every object is
 * strict: a field the spec does not name (an `approval_token` smuggled into a response) is refused
 * and goes through the one repair retry of §5.1.0, never silently dropped. Field names keep the
 * spec's snake_case: they are the JSON the model writes.
 */

export { InteractionMode, ExecutorAgentOutput };

// ---------------------------------------------------------------------------------------------
// Enums

/** The four structured-output calls of §5.1.0; each has its own deterministic fallback. */
export const AgentName = z.enum(['proxy', 'planner', 'executor', 'scorer']);
export type AgentName = z.infer<typeof AgentName>;

/** §0.5.7 / §3.2: what kind of interaction a turn is. */
export const InteractionRegister = z.enum(['exploration', 'execution', 'review', 'status'], {
  error: 'expected one of: exploration, execution, review, status',
});
export type InteractionRegister = z.infer<typeof InteractionRegister>;

export const PlanActionType = z.enum(['propose', 'revise', 'execute_next', 'abort'], { error: 'expected one of: propose, revise, execute_next, abort' });
export type PlanActionType = z.infer<typeof PlanActionType>;

/** §3.8 MemoryType. */
export const MemoryType = z.enum(['fact', 'episode', 'preference', 'skill_note', 'decision', 'foresight', 'profile'], {
  error: 'expected one of: fact, episode, preference, skill_note, decision, foresight, profile',
});
export type MemoryType = z.infer<typeof MemoryType>;

const MemoryOpType = z.enum(['store', 'update', 'delete', 'link'], { error: 'expected one of: store, update, delete, link' });
type MemoryOpType = z.infer<typeof MemoryOpType>;

const MemoryQueryStrategy = z.enum(['semantic', 'temporal', 'session', 'keyword'], { error: 'expected one of: semantic, temporal, session, keyword' });

// ---------------------------------------------------------------------------------------------
// Bounds. The spec sets only `memory_queries <= 3`; the others are generous ceilings so that a
// runaway model answer is a validation error (and a repair) rather than a megabyte in the ledger.

const MAX_MEMORY_QUERIES = 3;
const MAX_AGENT_MESSAGE_CHARS = 100_000;
const MAX_PLAN_MARKDOWN_CHARS = 256 * 1024;
const MAX_SHORT_TEXT = 10_000;

const text = (max: number) => z.string({ error: 'expected text' }).max(max, { error: `at most ${max} characters` });
const positiveInt = (max: number) =>
  z.number({ error: 'expected a positive integer' }).int({ error: 'expected a positive integer' }).min(1, { error: 'expected a positive integer' }).max(max, { error: `at most ${max}` });
const labels = z.array(text(200), { error: 'expected a list of strings' }).max(100, { error: 'at most 100 entries' });

// ---------------------------------------------------------------------------------------------
// §3.2 models

export const MemoryQuery = z.strictObject({
  strategy: MemoryQueryStrategy,
  query: text(2000),
  max_results: positiveInt(100).default(5),
  max_tokens: positiveInt(100_000).default(2000),
});
export type MemoryQuery = z.infer<typeof MemoryQuery>;

/** Fields each operation needs (§3.2: "MemoryOp MUST use a model_validator"). */
const MEMORY_OP_REQUIRED: Record<MemoryOpType, ReadonlyArray<'content' | 'memory_id' | 'link_to' | 'link_type'>> = {
  store: ['content'],
  update: ['memory_id', 'content'],
  delete: ['memory_id'],
  link: ['memory_id', 'link_to', 'link_type'],
};

export const MemoryOp = z
  .strictObject({
    op: MemoryOpType,
    content: text(MAX_AGENT_MESSAGE_CHARS).nullable().default(null),
    memory_id: text(200).nullable().default(null),
    memory_type: MemoryType.default('episode'),
    tags: labels.default([]),
    entity_refs: labels.default([]),
    link_to: text(200).nullable().default(null),
    link_type: text(200).nullable().default(null),
  })
  .superRefine((op, ctx) => {
    for (const field of MEMORY_OP_REQUIRED[op.op]) {
      if (op[field] === null) ctx.addIssue({ code: 'custom', path: [field], message: `a "${op.op}" operation needs ${field}` });
    }
  });
export type MemoryOp = z.infer<typeof MemoryOp>;

export const PlanAction = z.strictObject({
  action: PlanActionType,
  /** §7.2 markdown plan with YAML front matter; the plan parser validates it, not this schema. */
  plan_markdown: text(MAX_PLAN_MARKDOWN_CHARS).nullable().default(null),
  continuation_of: WorkItemId.nullable().default(null),
  interaction_mode_override: InteractionMode.nullable().default(null),
});
export type PlanAction = z.infer<typeof PlanAction>;

/**
 * §3.2 AgentResponse, the output of the Proxy (inside a direct RouteDecision) and the Planner.
 * `needs_approval` is the agent's *request*, never an authorisation (§5.1.2 step 12); it defaults
 * to true so an answer that leaves it out asks for the safe thing.
 */
export const AgentResponse = z.strictObject({
  message: text(MAX_AGENT_MESSAGE_CHARS),
  memory_queries: z
    .array(MemoryQuery, { error: 'expected a list of memory queries' })
    .max(MAX_MEMORY_QUERIES, { error: `at most ${MAX_MEMORY_QUERIES} memory queries per response` })
    .default([]),
  // No model-level bound (§3.2): the Stream truncates to max_memory_ops_per_turn and audits it.
  memory_ops: z.array(MemoryOp, { error: 'expected a list of memory operations' }).default([]),
  plan_action: PlanAction.nullable().default(null),
  needs_approval: z.boolean({ error: 'expected true or false' }).default(true),
});
export type AgentResponse = z.infer<typeof AgentResponse>;
export type AgentResponseInput = z.input<typeof AgentResponse>;

export const Route = z.enum(['direct', 'planner'], { error: 'expected one of: direct, planner' });
export type Route = z.infer<typeof Route>;

const routeDecisionShape = {
  route: Route,
  reason: text(MAX_SHORT_TEXT),
  response: AgentResponse.nullable().default(null),
  interaction_register: InteractionRegister,
  interaction_mode: InteractionMode,
  continuation_of: WorkItemId.nullable().default(null),
  context_profile: text(200).min(1, { error: 'expected a context profile name' }),
};

function checkRoute(decision: { route: Route; response: AgentResponse | null }, ctx: z.RefinementCtx): void {
  if (decision.route === 'direct' && decision.response === null) {
    ctx.addIssue({ code: 'custom', path: ['response'], message: 'a direct route carries the response to send' });
  }
  if (decision.route === 'planner' && decision.response !== null) {
    ctx.addIssue({ code: 'custom', path: ['response'], message: 'a planner route has no response (null); the Planner answers' });
  }
}

/**
 * §3.2 RouteDecision without the registry check: a direct route carries its response, a planner
 * route none. Use `routeDecisionSchema(profiles)` for the Proxy's output, which also requires
 * `context_profile` to name a configured profile.
 */
export const RouteDecision = z.strictObject(routeDecisionShape).superRefine(checkRoute);
export type RouteDecision = z.infer<typeof RouteDecision>;
export type RouteDecisionInput = z.input<typeof RouteDecision>;

/** RouteDecision whose `context_profile` must exist in the configured profile registry (§3.2). */
export function routeDecisionSchema(profiles: readonly string[]) {
  const known = new Set(profiles);
  return z.strictObject(routeDecisionShape).superRefine((decision, ctx) => {
    checkRoute(decision, ctx);
    if (!known.has(decision.context_profile)) {
      ctx.addIssue({ code: 'custom', path: ['context_profile'], message: `unknown context profile; expected one of: ${[...known].join(', ')}` });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// §7.3 Executor. The final answer is §3.7 ExecutorAgentOutput (execution.ts); to act, the model
// answers one ExecutorTurn at a time: a tool call, a plan-step report, or the final output.

export const ExecutorTurn = z.discriminatedUnion(
  'action',
  [
    z.strictObject({ action: z.literal('tool_call'), tool: text(100).min(1, { error: 'expected a tool name' }), args: JsonObject }),
    z.strictObject({
      action: z.literal('step_done'),
      step: z.number({ error: 'expected a step number' }).int({ error: 'expected a whole step number' }).min(0, { error: 'expected a step number >= 0' }),
      outputs: JsonObject,
    }),
    z.strictObject({ action: z.literal('finish'), output: ExecutorAgentOutput }),
  ],
  { error: 'expected an object whose "action" is one of: tool_call, step_done, finish' },
);
export type ExecutorTurn = z.infer<typeof ExecutorTurn>;

// ---------------------------------------------------------------------------------------------
// §5.7 scorer

const ScorerGroup = z.strictObject({
  reason: text(MAX_SHORT_TEXT),
  block_ids: z.array(text(200), { error: 'expected a list of block ids' }).max(10_000),
});

export const ScorerOutput = z.strictObject({
  keep_groups: z.array(ScorerGroup, { error: 'expected a list of groups' }).max(1000),
  evict_groups: z.array(ScorerGroup, { error: 'expected a list of groups' }).max(1000),
});
export type ScorerOutput = z.infer<typeof ScorerOutput>;

/** One context block the scorer judges: a ContextItem (§3.5) seen through its metadata and a preview. */
const ScorerBlock = z.strictObject({
  block_id: z.string().min(1).max(200),
  zone: z.enum(['chronicle', 'memory', 'workspace']),
  kind: z.string().max(100),
  source: z.string().max(200),
  taint: TaintLevel,
  turn_number: z.number().int().min(0),
  token_count: z.number().int().min(0),
  relevance: z.number().min(0).max(1),
  preview: z.string().max(4000),
});

/** What the scorer prompt of §5.7 is built from. Pinned items are never offered: they are never evicted. */
export const ScorerInput = z.strictObject({
  current_goal: z.string().max(MAX_SHORT_TEXT).nullable(),
  recent_turns: z.array(z.string().max(MAX_SHORT_TEXT)).max(3),
  blocks: z.array(ScorerBlock).max(10_000),
});
export type ScorerInput = z.infer<typeof ScorerInput>;

// ---------------------------------------------------------------------------------------------
// §11 interaction settings (config `interaction`)

const DEFAULT_MODE_BY_REGISTER: Record<InteractionRegister, InteractionMode> = {
  exploration: 'default_and_offer',
  execution: 'act_and_report',
  review: 'confirm_only_when_required',
  status: 'default_and_offer',
};

/** §11 startup rule: `default_mode_by_register` must define every register. */
export const InteractionConfig = z.strictObject({
  high_initiative_min: z.number().min(0).max(1).default(0.65),
  default_mode_by_register: z
    .strictObject({ exploration: InteractionMode, execution: InteractionMode, review: InteractionMode, status: InteractionMode })
    .default(() => ({ ...DEFAULT_MODE_BY_REGISTER })),
});
export type InteractionConfig = z.infer<typeof InteractionConfig>;

// ---------------------------------------------------------------------------------------------
// What runStructuredAgent reports when a model answer needed the repair retry or the fallback.

export const StructuredOutputReason = z.enum(['schema_invalid_twice', 'call_failed', 'repair_call_failed']);
export type StructuredOutputReason = z.infer<typeof StructuredOutputReason>;

/**
 * The data of a repair or fallback event (in the ledger: `silas.agent.output_repaired` and
 * `silas.agent.output_fallback`, with the work item added). Error summaries name JSON paths and are capped; of the model's
 * answer only its length and a short redacted excerpt are kept, never the whole text.
 */
export const StructuredOutputEvent = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('repaired'),
    agent: AgentName,
    first_error: z.string().max(2000),
  }),
  z.strictObject({
    kind: z.literal('fallback'),
    agent: AgentName,
    reason: StructuredOutputReason,
    first_error: z.string().max(2000),
    repair_error: z.string().max(2000).nullable(),
    raw_chars: z.number().int().min(0),
    raw_excerpt: z.string().max(400),
  }),
]);
export type StructuredOutputEvent = z.infer<typeof StructuredOutputEvent>;
