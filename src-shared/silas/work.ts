import { z } from 'zod';
import { JsonObject } from '../schemas/json.js';
import { AccessLevels } from './access.js';
import { ApprovalToken, UtcInstant } from './approval.js';
import { Gate } from './gates.js';

/**
 * Work item models of spec 002 §3.3. Field names keep the spec's snake_case: plans are written
 * in YAML with these names and the plan hash (§3.3) is taken over them, so a rename would change
 * every approval. Every object is strict, so a misspelt plan field is refused instead of ignored.
 * See docs/silas/work-models.md for the decisions taken where the spec is silent.
 */

// ---------------------------------------------------------------------------------------------
// Building blocks

const POSITIVE_INT = 'expected a positive integer';
const NON_NEGATIVE_INT = 'expected a whole number >= 0';

const positiveInt = () =>
  z.number({ error: POSITIVE_INT }).int({ error: POSITIVE_INT }).min(1, { error: POSITIVE_INT }).max(Number.MAX_SAFE_INTEGER, { error: POSITIVE_INT });
const nonNegativeInt = () =>
  z
    .number({ error: NON_NEGATIVE_INT })
    .int({ error: NON_NEGATIVE_INT })
    .min(0, { error: NON_NEGATIVE_INT })
    .max(Number.MAX_SAFE_INTEGER, { error: NON_NEGATIVE_INT });
const nonNegativeNumber = () => z.number({ error: 'expected a number >= 0' }).min(0, { error: 'expected a number >= 0' });

/**
 * Work item ids become audit keys, store keys and work-directory names, so they are restricted
 * to a filename-safe alphabet that cannot spell `.`, `..` or a path separator.
 */
export const WorkItemId = z
  .string({ error: 'expected a work item id (text)' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, {
    error: 'expected an id of 1-200 characters from A-Z a-z 0-9 . _ : - starting with a letter or digit (e.g. task-fix-tz-bug)',
  });
export type WorkItemId = z.infer<typeof WorkItemId>;

/** Agent Skills standard (agentskills.io) names: lowercase letters, digits, single hyphens, at most 64. */
const SkillName = z
  .string({ error: 'expected a skill name (text)' })
  .max(64, { error: 'skill names are at most 64 characters' })
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { error: 'skill names use lowercase letters, digits and single hyphens (e.g. coding)' });

/** Names of escalation entries, gates' `on_block` targets and fallbacks. */
const EscalationName = z
  .string({ error: 'expected an escalation name (text)' })
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,99}$/, { error: 'expected a name of 1-100 characters from A-Z a-z 0-9 _ . : -' });

const shortText = (max: number) => z.string({ error: 'expected text' }).max(max, { error: `at most ${max} characters` });

/** Lists whose entries name things must not repeat a name: a repeat is always a plan mistake. */
function uniqueList<T extends z.ZodType<string>>(item: T, max: number) {
  return z
    .array(item, { error: 'expected a list' })
    .max(max, { error: `at most ${max} entries` })
    .superRefine((values, ctx) => {
      const seen = new Set<string>();
      values.forEach((value, index) => {
        if (seen.has(value)) ctx.addIssue({ code: 'custom', path: [index], message: `"${value}" is listed twice` });
        seen.add(value);
      });
    });
}

// ---------------------------------------------------------------------------------------------
// Enums

export const WorkItemType = z.enum(['task', 'project', 'goal'], { error: 'expected one of: task, project, goal' });
export type WorkItemType = z.infer<typeof WorkItemType>;

export const WorkItemStatus = z.enum(['pending', 'running', 'healthy', 'done', 'failed', 'stuck', 'blocked', 'paused'], {
  error: 'expected one of: pending, running, healthy, done, failed, stuck, blocked, paused',
});
export type WorkItemStatus = z.infer<typeof WorkItemStatus>;

/** §3.2 InteractionMode; a work item defaults to `confirm_only_when_required`. */
export const InteractionMode = z.enum(['default_and_offer', 'act_and_report', 'confirm_only_when_required'], {
  error: 'expected one of: default_and_offer, act_and_report, confirm_only_when_required',
});
export type InteractionMode = z.infer<typeof InteractionMode>;

/** Execution lane: `ephemeral` is dispatched to the executor; `stream` configures the long-lived Stream. */
export const WorkItemAgent = z.enum(['ephemeral', 'stream'], { error: 'expected one of: ephemeral, stream' });
export type WorkItemAgent = z.infer<typeof WorkItemAgent>;

// ---------------------------------------------------------------------------------------------
// Budget

export const Budget = z
  .object({
    max_tokens: positiveInt().default(200_000),
    max_cost_usd: z
      .number({ error: 'expected a positive amount in USD' })
      .gt(0, { error: 'expected a positive amount in USD' })
      .default(2.0),
    max_wall_time_seconds: positiveInt().default(1800),
    max_attempts: positiveInt().default(5),
    max_planner_calls: positiveInt().default(3),
  })
  .strict();
export type Budget = z.infer<typeof Budget>;

export const BudgetUsed = z
  .object({
    tokens: nonNegativeInt().default(0),
    cost_usd: nonNegativeNumber().default(0),
    wall_time_seconds: nonNegativeNumber().default(0),
    attempts: nonNegativeInt().default(0),
    planner_calls: nonNegativeInt().default(0),
    executor_runs: nonNegativeInt().default(0),
  })
  .strict();
export type BudgetUsed = z.infer<typeof BudgetUsed>;

/** Which consumption counter each limit caps. `executor_runs` is tracked but has no limit. */
const BUDGET_LIMITS = [
  ['tokens', 'max_tokens'],
  ['cost_usd', 'max_cost_usd'],
  ['wall_time_seconds', 'max_wall_time_seconds'],
  ['attempts', 'max_attempts'],
  ['planner_calls', 'max_planner_calls'],
] as const satisfies ReadonlyArray<readonly [keyof BudgetUsed, keyof Budget]>;

export function emptyBudgetUsed(): BudgetUsed {
  return { tokens: 0, cost_usd: 0, wall_time_seconds: 0, attempts: 0, planner_calls: 0, executor_runs: 0 };
}

/**
 * The limits `used` has reached. Reaching a limit exactly counts (`>=`, §3.3): the check runs
 * before every action, so an action started at the limit would spend beyond it.
 */
export function exhaustedBudgetFields(used: BudgetUsed, budget: Budget): Array<keyof Budget> {
  return BUDGET_LIMITS.filter(([spent, limit]) => used[spent] >= budget[limit]).map(([, limit]) => limit);
}

/** §3.3 `BudgetUsed.exceeds(budget)`: true once any limit is reached. */
export function budgetExceeds(used: BudgetUsed, budget: Budget): boolean {
  return exhaustedBudgetFields(used, budget).length > 0;
}

/** §3.3 `BudgetUsed.merge(child)`: every field summed, so a project reflects all of its tasks. Pure. */
export function mergeBudgetUsed(parent: BudgetUsed, child: BudgetUsed): BudgetUsed {
  return {
    tokens: parent.tokens + child.tokens,
    cost_usd: parent.cost_usd + child.cost_usd,
    wall_time_seconds: parent.wall_time_seconds + child.wall_time_seconds,
    attempts: parent.attempts + child.attempts,
    planner_calls: parent.planner_calls + child.planner_calls,
    executor_runs: parent.executor_runs + child.executor_runs,
  };
}

/** One line for cards and CLI output, e.g. `tokens 1,200/200,000 · cost $0.12/$2.00 · ...`. */
export function formatBudgetUsage(used: BudgetUsed, budget: Budget): string {
  const count = (n: number) => Math.round(n).toLocaleString('en-US');
  return [
    `tokens ${count(used.tokens)}/${count(budget.max_tokens)}`,
    `cost $${used.cost_usd.toFixed(2)}/$${budget.max_cost_usd.toFixed(2)}`,
    `time ${count(used.wall_time_seconds)}s/${count(budget.max_wall_time_seconds)}s`,
    `attempts ${used.attempts}/${budget.max_attempts}`,
    `planner calls ${used.planner_calls}/${budget.max_planner_calls}`,
  ].join(' · ');
}

// ---------------------------------------------------------------------------------------------
// Verification

export const EXPECTATION_PREDICATES = ['exit_code', 'equals', 'contains', 'regex', 'output_lt', 'output_gt', 'file_exists', 'not_empty'] as const;
export type ExpectationPredicate = (typeof EXPECTATION_PREDICATES)[number];

/**
 * `file_exists` paths are checked here for what can be decided without the host: no `..`
 * anywhere (§3.3 says "containing `..`", taken literally), no NUL. The verification runner
 * additionally confines the path to its permitted directories.
 */
const FileExistsPath = z
  .string({ error: 'expected a file path' })
  .min(1, { error: 'expected a file path' })
  .max(4096, { error: 'at most 4096 characters' })
  .refine((path) => !path.includes('..'), { error: 'paths containing ".." are not allowed; name a file inside the work directory' })
  .refine((path) => !path.includes('\0'), { error: 'paths must not contain NUL' });

/** §3.3 Expectation: exactly one predicate. Unset predicates are `null`, as Pydantic dumps them. */
export const Expectation = z
  .object({
    exit_code: z.number({ error: 'expected an integer exit code' }).int({ error: 'expected an integer exit code' }).nullable().default(null),
    equals: shortText(100_000).nullable().default(null),
    contains: shortText(100_000).nullable().default(null),
    regex: z.string({ error: 'expected a regular expression' }).min(1).max(1000, { error: 'at most 1000 characters' }).nullable().default(null),
    output_lt: z.number({ error: 'expected a number' }).nullable().default(null),
    output_gt: z.number({ error: 'expected a number' }).nullable().default(null),
    file_exists: FileExistsPath.nullable().default(null),
    not_empty: z.boolean({ error: 'expected true' }).nullable().default(null),
  })
  .strict()
  .superRefine((expect, ctx) => {
    if (expect.not_empty === false) {
      ctx.addIssue({ code: 'custom', path: ['not_empty'], message: 'not_empty: false checks nothing; write not_empty: true or choose another predicate' });
      return;
    }
    const set = EXPECTATION_PREDICATES.filter((key) => expect[key] !== null);
    if (set.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message:
          set.length === 0
            ? `exactly one predicate is required, none given; use one of: ${EXPECTATION_PREDICATES.join(', ')}`
            : `exactly one predicate is allowed, ${set.length} given (${set.join(', ')}); split them into separate checks`,
      });
    }
  });
export type Expectation = z.infer<typeof Expectation>;
export type ExpectationInput = z.input<typeof Expectation>;

/** The predicate an Expectation sets (validation guarantees there is exactly one). */
export function expectationPredicate(expect: Expectation): ExpectationPredicate {
  return EXPECTATION_PREDICATES.find((key) => expect[key] !== null)!;
}

/** §3.3 VerificationCheck: run by the runtime outside the agent's sandbox; the agent cannot edit it. */
export const VerificationCheck = z
  .object({
    name: z.string({ error: 'expected a check name' }).min(1, { error: 'expected a check name' }).max(200, { error: 'at most 200 characters' }),
    run: z.string({ error: 'expected a shell command' }).min(1, { error: 'expected a shell command' }).max(10_000, { error: 'at most 10000 characters' }),
    expect: Expectation,
    timeout: positiveInt().max(86_400, { error: 'at most 86400 seconds' }).default(60),
    network: z.boolean({ error: 'expected true or false' }).default(false),
  })
  .strict();
export type VerificationCheck = z.infer<typeof VerificationCheck>;

// ---------------------------------------------------------------------------------------------
// Escalation

const ESCALATION_ACTIONS = [
  'report',
  'escalate_human',
  'transfer_to_queue',
  'suppress_and_rephrase',
  'suppress_and_escalate',
  'respond',
  'spawn_task',
  'retry',
] as const;
const EscalationActionType = z.enum(ESCALATION_ACTIONS, { error: `expected one of: ${ESCALATION_ACTIONS.join(', ')}` });

export const EscalationAction = z
  .object({
    action: EscalationActionType,
    queue: shortText(200).nullable().default(null),
    message: shortText(10_000).nullable().default(null),
    instruction: shortText(10_000).nullable().default(null),
    max_retries: nonNegativeInt().max(100, { error: 'at most 100' }).default(2),
    fallback: EscalationName.nullable().default(null),
  })
  .strict()
  .superRefine((escalation, ctx) => {
    if (escalation.action === 'transfer_to_queue' && !escalation.queue) {
      ctx.addIssue({ code: 'custom', path: ['queue'], message: 'transfer_to_queue needs a queue to transfer to' });
    }
  });
export type EscalationAction = z.infer<typeof EscalationAction>;

/** `on_stuck` may also name the planner consultation of §5.2.1. */
export const CONSULT_PLANNER = 'consult_planner';

// ---------------------------------------------------------------------------------------------
// WorkItem

/** The literal schedule of continuously running goals (chatbot deployments). */
const ALWAYS_ON = 'always_on';

const CRON_FIELD = /^[0-9A-Za-z*?/,#-]+$/;

/** A 5- or 6-field cron expression (croner syntax) or `always_on`; the scheduler parses it fully. */
const Schedule = z
  .string({ error: 'expected a cron expression or always_on' })
  .max(200, { error: 'at most 200 characters' })
  .refine(
    (value) => {
      if (value === ALWAYS_ON) return true;
      const fields = value.trim().split(/\s+/);
      return (fields.length === 5 || fields.length === 6) && fields.every((field) => CRON_FIELD.test(field));
    },
    { error: 'expected a cron expression with 5 or 6 fields (e.g. "*/30 * * * *") or always_on' },
  );

/**
 * Fields in declaration order. The plan hash covers all of them except the runtime-managed ones
 * listed in `PLAN_HASH_EXCLUDED_FIELDS` (src-main/silas/work/hashes.ts).
 */
const workItemShape = {
  // Identity
  id: WorkItemId,
  type: WorkItemType,
  title: z.string({ error: 'expected a title' }).trim().min(1, { error: 'expected a non-empty title' }).max(500, { error: 'at most 500 characters' }),
  parent: WorkItemId.nullable().default(null),
  spawned_by: WorkItemId.nullable().default(null),
  follow_up_of: WorkItemId.nullable().default(null),
  domain: shortText(200).nullable().default(null),
  // Scope. `agent` is optional on input only: the default depends on type and schedule.
  agent: WorkItemAgent.optional(),
  budget: Budget.default(() => Budget.parse({})),
  needs_approval: z.boolean({ error: 'expected true or false' }).default(true),
  approval_token: ApprovalToken.nullable().default(null),
  // Briefing
  body: shortText(200_000).default(''),
  interaction_mode: InteractionMode.default('confirm_only_when_required'),
  input_artifacts_from: uniqueList(z.string().min(1).max(200), 200).default([]),
  // Verification, gates, skills
  verify: z.array(VerificationCheck, { error: 'expected a list of checks' }).max(100, { error: 'at most 100 checks' }).default([]),
  gates: z.array(Gate, { error: 'expected a list of gates' }).max(100, { error: 'at most 100 gates' }).default([]),
  skills: uniqueList(SkillName, 100).default([]),
  // Access control and escalation
  access_levels: AccessLevels.default({}),
  escalation: z.record(EscalationName, EscalationAction, { error: 'expected a mapping of escalation names' }).default({}),
  // Lifecycle
  schedule: Schedule.nullable().default(null),
  on_failure: EscalationName.default('report'),
  on_stuck: EscalationName.default(CONSULT_PLANNER),
  failure_context: shortText(100_000).nullable().default(null),
  // Hierarchy
  tasks: uniqueList(WorkItemId, 1000).default([]),
  depends_on: uniqueList(WorkItemId, 1000).default([]),
  // State, managed by the runtime
  status: WorkItemStatus.default('pending'),
  attempts: nonNegativeInt().default(0),
  budget_used: BudgetUsed.default(() => emptyBudgetUsed()),
  verification_results: z.array(JsonObject).default([]),
  created_at: UtcInstant.default(() => new Date().toISOString()),
};

/** Every WorkItem field name, in the order of §3.3. */
export const WORK_ITEM_FIELDS = Object.keys(workItemShape) as Array<keyof typeof workItemShape>;

/** Fields the runtime manages; a plan written by the Planner must not set them (see plan-parser). */
export const RUNTIME_MANAGED_FIELDS = ['approval_token', 'status', 'attempts', 'budget_used', 'verification_results', 'created_at'] as const;

/** §3.3: `task` and `project` run ephemerally; an `always_on` goal configures the Stream unless told otherwise. */
export function defaultAgent(type: WorkItemType, schedule: string | null): WorkItemAgent {
  return type === 'goal' && schedule === ALWAYS_ON ? 'stream' : 'ephemeral';
}

type WorkItemDraft = z.output<z.ZodObject<typeof workItemShape>>;

function checkWorkItem(item: WorkItemDraft & { agent: WorkItemAgent }, ctx: z.RefinementCtx): void {
  const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });

  if (item.type !== 'goal' && item.agent !== 'ephemeral') {
    issue(['agent'], `a ${item.type} must use agent: ephemeral (only goals may configure the stream lane)`);
  }
  if (item.schedule !== null && item.type !== 'goal') issue(['schedule'], 'only goals have a schedule; remove it or make this a goal');
  if (item.tasks.length > 0 && item.type !== 'project') issue(['tasks'], 'only projects list child tasks; remove tasks or make this a project');

  for (const [field, ids] of [['tasks', item.tasks], ['depends_on', item.depends_on]] as const) {
    const self = ids.indexOf(item.id);
    if (self >= 0) issue([field, self], `a work item cannot list itself (${item.id}) in ${field}`);
  }
  for (const field of ['parent', 'spawned_by', 'follow_up_of'] as const) {
    if (item[field] === item.id) issue([field], `a work item cannot name itself (${item.id}) as ${field}`);
  }

  if (item.input_artifacts_from.length > 0) {
    if (item.follow_up_of === null) issue(['input_artifacts_from'], 'input_artifacts_from needs follow_up_of naming the work item to import from');
    if (item.input_artifacts_from.includes('*') && item.input_artifacts_from.length > 1) {
      issue(['input_artifacts_from'], '"*" already imports every artifact; list "*" alone or only named keys');
    }
  }

  const gateNames = new Map<string, number>();
  item.gates.forEach((gate, index) => {
    if (gateNames.has(gate.name)) issue(['gates', index, 'name'], `gate name "${gate.name}" is used twice; gate names must be unique`);
    gateNames.set(gate.name, index);
  });

  // Every escalation reference must resolve now, so a typo fails before anything runs.
  const resolves = (name: string) => name in item.escalation || (ESCALATION_ACTIONS as readonly string[]).includes(name);
  const known = `define it under escalation or use one of: ${ESCALATION_ACTIONS.join(', ')}`;
  if (!resolves(item.on_failure)) issue(['on_failure'], `unknown escalation "${item.on_failure}"; ${known}`);
  if (item.on_stuck !== CONSULT_PLANNER && !resolves(item.on_stuck)) {
    issue(['on_stuck'], `unknown escalation "${item.on_stuck}"; ${known}, or consult_planner`);
  }
  item.gates.forEach((gate, index) => {
    if (gate.on_block && !resolves(gate.on_block)) issue(['gates', index, 'on_block'], `unknown escalation "${gate.on_block}"; ${known}`);
  });
  for (const [name, escalation] of Object.entries(item.escalation)) {
    if (escalation.fallback !== null && !resolves(escalation.fallback)) {
      issue(['escalation', name, 'fallback'], `unknown escalation "${escalation.fallback}"; ${known}`);
    }
  }
  const cycle = findFallbackCycle(item.escalation);
  if (cycle) issue(['escalation', cycle[0]!, 'fallback'], `fallbacks form a loop (${cycle.join(' -> ')}); end the chain with a plain action`);
}

/** The first loop in the `fallback` chains, as the list of names ending where it started. */
function findFallbackCycle(escalation: Record<string, EscalationAction>): string[] | null {
  for (const start of Object.keys(escalation)) {
    const path = [start];
    let current = escalation[start]?.fallback ?? null;
    while (current !== null && current in escalation) {
      if (path.includes(current)) return [...path.slice(path.indexOf(current)), current];
      path.push(current);
      current = escalation[current]!.fallback;
    }
  }
  return null;
}

/**
 * §3.3 WorkItem. Parsing fills every default (so two spellings of the same plan hash alike),
 * resolves `agent` from type and schedule when absent, and enforces the cross-field rules.
 */
export const WorkItem = z
  .object(workItemShape)
  .strict()
  .transform((item) => ({ ...item, agent: item.agent ?? defaultAgent(item.type, item.schedule) }))
  .superRefine(checkWorkItem);
export type WorkItem = z.infer<typeof WorkItem>;
/** What callers may pass to `WorkItem.parse`: every field with a default is optional. */
export type WorkItemInput = z.input<typeof WorkItem>;

// ---------------------------------------------------------------------------------------------
// Result

export const WorkItemResultStatus = z.enum(['done', 'healthy', 'failed', 'stuck', 'blocked']);
export type WorkItemResultStatus = z.infer<typeof WorkItemResultStatus>;

/** §3.3 WorkItemResult: the executor's deterministic return contract. */
export const WorkItemResult = z
  .object({
    work_item_id: WorkItemId,
    status: WorkItemResultStatus,
    summary: z.string(),
    last_error: z.string().nullable().default(null),
    verification_results: z.array(JsonObject).default([]),
    budget_used: BudgetUsed,
    artifacts: z.record(z.string(), z.string()).default({}),
    next_steps: z.array(z.string()).default([]),
  })
  .strict();
export type WorkItemResult = z.infer<typeof WorkItemResult>;
