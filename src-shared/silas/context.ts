import { z } from 'zod';
import { UtcInstant } from './approval.js';
import { TaintLevel } from './execution.js';

/**
 * Context models of spec 002 §3.5: the zones of a turn's context window, the items in them, the
 * budget profiles and the token budget. Field names keep the spec's snake_case (items are
 * persisted by the chronicle store, §4.14, and budgets are read from `context:` in config, §11).
 * Subscriptions (§3.5 ContextSubscription) are references to live resources, materialised on
 * each render (src-main/silas/context/subscriptions.ts). Decisions where the spec is silent: docs/silas/context.md.
 */

/** §3.5 ContextZone. */
export const ContextZone = z.enum(['system', 'chronicle', 'memory', 'workspace']);
export type ContextZone = z.infer<typeof ContextZone>;

/** §4.3 / §5.7 rendering order: recent conversation before recall, the active workspace last. */
export const ZONE_ORDER: readonly ContextZone[] = ['system', 'chronicle', 'memory', 'workspace'];

/** The zones whose budgets are shares of the allocable budget (the system zone has `system_max`). */
export const ALLOCABLE_ZONES = ['chronicle', 'memory', 'workspace'] as const;
export type AllocableZone = (typeof ALLOCABLE_ZONES)[number];

/** §3.5 ContextItem.kind: it drives the metadata tag a block is rendered with. */
export const ContextItemKind = z.enum(['message', 'tool_result', 'memory', 'plan', 'execution_result', 'subscription', 'system']);
export type ContextItemKind = z.infer<typeof ContextItemKind>;

/**
 * A context scope: `"owner"` in single-user mode, otherwise the connection id (§5.1). Items of one
 * scope are never visible from another (§4.3).
 */
export const ScopeId = z
  .string({ error: 'expected a scope id (text)' })
  .min(1, { error: 'a scope id must not be empty' })
  .max(200, { error: 'a scope id has at most 200 characters' });
export type ScopeId = z.infer<typeof ScopeId>;

/**
 * Labels (`ctx_id`, `source`) are written into block headers, so they may not contain a line
 * break, a control character or the `|` that separates header fields: an item cannot forge the
 * header of another.
 */
const Label = (what: string) =>
  z
    .string({ error: `expected ${what} (text)` })
    .min(1, { error: `${what} must not be empty` })
    .max(200, { error: `${what} has at most 200 characters` })
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\x00-\x1f\x7f|]+$/, { error: `${what} must not contain "|", line breaks or control characters` });

/** §3.5 ContextItem. */
export const ContextItem = z
  .object({
    ctx_id: Label('ctx_id'),
    zone: ContextZone,
    /** The text, or the masked placeholder after observation masking. */
    content: z.string(),
    /** Counted by the context manager's token counter (§5.13) when the item is added. */
    token_count: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    created_at: UtcInstant,
    turn_number: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    /** Origin label, e.g. `channel:web`, `memory:profile`, `agent:planner`, `tool:shell_exec:succeeded`. */
    source: Label('source'),
    taint: TaintLevel,
    kind: ContextItemKind,
    relevance: z.number().finite().default(1.0),
    masked: z.boolean().default(false),
    pinned: z.boolean().default(false),
  })
  .strict();
export type ContextItem = z.infer<typeof ContextItem>;
export type ContextItemInput = z.input<typeof ContextItem>;

/** §3.5: chronicle + memory + workspace may take at most this share; the rest is headroom. */
const MAX_ALLOCABLE_PCT = 0.8;
/** Sums of binary fractions are inexact (0.1 + 0.7 !== 0.8); this much over the cap is rounding. */
const PCT_SUM_TOLERANCE = 1e-9;

const Pct = (field: string) =>
  z
    .number({ error: `${field} must be a number from 0.0 to 1.0` })
    .min(0, { error: `${field} must be at least 0.0` })
    .max(1, { error: `${field} must be at most 1.0` });

const profileShares = {
  chronicle_pct: Pct('chronicle_pct'),
  memory_pct: Pct('memory_pct'),
  workspace_pct: Pct('workspace_pct'),
};

const ProfileName = z
  .string({ error: 'expected a profile name (text)' })
  .min(1, { error: 'a profile name must not be empty' })
  .max(64, { error: 'a profile name has at most 64 characters' });

type Shares = { chronicle_pct: number; memory_pct: number; workspace_pct: number };
function checkShareSum(profile: Shares, ctx: z.RefinementCtx): void {
  const sum = profile.chronicle_pct + profile.memory_pct + profile.workspace_pct;
  if (sum > MAX_ALLOCABLE_PCT + PCT_SUM_TOLERANCE) {
    ctx.addIssue({
      code: 'custom',
      message: `chronicle_pct + memory_pct + workspace_pct is ${Number(sum.toFixed(6))}; it must be at most ${MAX_ALLOCABLE_PCT} (20% of the allocable budget stays headroom)`,
    });
  }
}

/** §3.5 ContextProfile. */
export const ContextProfile = z
  .object({ name: ProfileName, ...profileShares })
  .strict()
  .superRefine(checkShareSum);
export type ContextProfile = z.infer<typeof ContextProfile>;

/** A profile as config writes it (`profiles: { coding: { chronicle_pct: … } }`): the key is its name. */
const ProfileEntry = z
  .object({ name: ProfileName.optional(), ...profileShares })
  .strict()
  .superRefine(checkShareSum);

/** The profiles of spec 002 §11 (`context.profiles`). */
export const DEFAULT_CONTEXT_PROFILES: Readonly<Record<string, ContextProfile>> = {
  conversation: { name: 'conversation', chronicle_pct: 0.45, memory_pct: 0.2, workspace_pct: 0.15 },
  coding: { name: 'coding', chronicle_pct: 0.2, memory_pct: 0.2, workspace_pct: 0.4 },
  research: { name: 'research', chronicle_pct: 0.2, memory_pct: 0.4, workspace_pct: 0.2 },
  support: { name: 'support', chronicle_pct: 0.4, memory_pct: 0.25, workspace_pct: 0.15 },
};

const positiveInt = (field: string) =>
  z
    .number({ error: `${field} must be a whole number >= 1` })
    .int({ error: `${field} must be a whole number >= 1` })
    .min(1, { error: `${field} must be a whole number >= 1` })
    .max(Number.MAX_SAFE_INTEGER);
const nonNegativeInt = (field: string) =>
  z
    .number({ error: `${field} must be a whole number >= 0` })
    .int({ error: `${field} must be a whole number >= 0` })
    .min(0, { error: `${field} must be a whole number >= 0` })
    .max(Number.MAX_SAFE_INTEGER);

/** §3.5 TokenBudget, with the defaults of §3.5 and §11. */
export const TokenBudget = z
  .object({
    total: positiveInt('total').default(180_000),
    system_max: nonNegativeInt('system_max').default(8_000),
    /** §11 start-up rule: at most 0.10. */
    skill_metadata_budget_pct: Pct('skill_metadata_budget_pct')
      .max(0.1, { error: 'skill_metadata_budget_pct must be at most 0.10' })
      .default(0.02),
    eviction_threshold_pct: Pct('eviction_threshold_pct').default(0.8),
    scorer_threshold_pct: Pct('scorer_threshold_pct').default(0.9),
    max_subscription_tokens: positiveInt('max_subscription_tokens').default(2_000),
    subscription_ttl_turns: positiveInt('subscription_ttl_turns').default(10),
    observation_mask_after_turns: nonNegativeInt('observation_mask_after_turns').default(5),
    profiles: z
      .record(ProfileName, ProfileEntry)
      .default(() => ({ ...DEFAULT_CONTEXT_PROFILES }))
      .superRefine((profiles, ctx) => {
        for (const [key, profile] of Object.entries(profiles)) {
          if (profile.name !== undefined && profile.name !== key) {
            ctx.addIssue({ code: 'custom', path: [key, 'name'], message: `profile "${key}" is named "${profile.name}"; the name must equal its key` });
          }
        }
      })
      .transform((profiles): Record<string, ContextProfile> => {
        const named: Record<string, ContextProfile> = {};
        for (const [key, profile] of Object.entries(profiles)) named[key] = { ...profile, name: key };
        return named;
      }),
    default_profile: ProfileName.default('conversation'),
  })
  .strict()
  .superRefine((budget, ctx) => {
    if (!Object.hasOwn(budget.profiles, budget.default_profile)) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_profile'],
        message: `default_profile "${budget.default_profile}" is not one of the profiles (${Object.keys(budget.profiles).join(', ') || 'none'})`,
      });
    }
    if (budget.system_max > budget.total) {
      ctx.addIssue({ code: 'custom', path: ['system_max'], message: `system_max (${budget.system_max}) must not exceed total (${budget.total})` });
    }
  });
export type TokenBudget = z.infer<typeof TokenBudget>;
export type TokenBudgetInput = z.input<typeof TokenBudget>;

/** §3.5 ContextSubscription.sub_type. */
export const SubscriptionType = z.enum(['file', 'file_lines', 'memory_query']);
export type SubscriptionType = z.infer<typeof SubscriptionType>;

/** Longest target: an absolute path (PATH_MAX is 4096 on Linux) or a memory query. */
const MAX_SUBSCRIPTION_TARGET_CHARS = 4096;

/**
 * A subscription's target is written into its block header (`--- subscription:file | TARGET | live
 * | last_changed: turn 8 ---`), so like a label it may not hold `|`, a line break or a control
 * character: a file name cannot forge a header. A path or query needing them is refused, not
 * rewritten (a rewritten path would name another file).
 */
export const SubscriptionTarget = z
  .string({ error: 'expected a target (text): an absolute file path, "path:start-end", or a memory query' })
  .trim()
  .min(1, { error: 'target must not be empty: give an absolute file path, "path:start-end", or a memory query' })
  .max(MAX_SUBSCRIPTION_TARGET_CHARS, { error: `target has at most ${MAX_SUBSCRIPTION_TARGET_CHARS} characters` })
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\x00-\x1f\x7f|]+$/, { error: 'target must not contain "|", line breaks or control characters (it is written into a block header); rename the file or reword the query' });

/** A `file_lines` target: `path:start-end`, lines counted from 1, both ends included. */
export interface LineRange {
  path: string;
  start: number;
  end: number;
}

/** Most lines one `file_lines` subscription may name (its text is capped by `max_subscription_tokens` anyway). */
const MAX_LINE_NUMBER = 10_000_000;

/** Parses `path:start-end`; null when the target does not have that shape. */
export function parseLineTarget(target: string): LineRange | null {
  const match = /^(.+):(\d{1,8})-(\d{1,8})$/u.exec(target);
  if (!match) return null;
  const start = Number(match[2]);
  const end = Number(match[3]);
  if (start < 1 || end < start || end > MAX_LINE_NUMBER) return null;
  return { path: match[1]!, start, end };
}

/** The file a file or file_lines subscription reads. */
export function subscriptionPath(sub: Pick<ContextSubscription, 'sub_type' | 'target'>): string | null {
  if (sub.sub_type === 'file') return sub.target;
  if (sub.sub_type === 'file_lines') return parseLineTarget(sub.target)?.path ?? null;
  return null;
}

/** §3.5 ContextSubscription: a reference to a live resource, materialised (resolved to its current content) on each render. */
export const ContextSubscription = z
  .object({
    sub_id: Label('sub_id'),
    sub_type: SubscriptionType,
    target: SubscriptionTarget,
    /** Where its materialised block goes (typically `workspace`; never `system`). */
    zone: z.enum(ALLOCABLE_ZONES).default('workspace'),
    created_at: UtcInstant,
    turn_created: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    /** SHA-256 (hex) of the content last materialised; for `file_lines`, of the lines as subscribed (the stale check). "" before the first. */
    content_hash: z.string().regex(/^([0-9a-f]{64})?$/u, { error: 'content_hash must be a SHA-256 in hex, or empty' }).default(''),
    active: z.boolean().default(true),
    /** Tokens of the last materialisation; a deactivated subscription costs zero. */
    token_count: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  })
  .strict()
  .superRefine((sub, ctx) => {
    if (sub.sub_type === 'memory_query') return;
    const path = subscriptionPath(sub);
    if (sub.sub_type === 'file_lines' && path === null) {
      ctx.addIssue({ code: 'custom', path: ['target'], message: `target "${sub.target}" is not "path:start-end" with 1 <= start <= end (e.g. /home/me/app/auth.py:10-45)` });
      return;
    }
    if (path !== null && !path.startsWith('/')) {
      ctx.addIssue({ code: 'custom', path: ['target'], message: `target "${path}" is not an absolute path; give the full path from / (e.g. /home/me/app/auth.py)` });
    }
  });
export type ContextSubscription = z.infer<typeof ContextSubscription>;

/** Errors of the context manager; each message names the item or the setting and the fix. */
export const ContextErrorCode = {
  /** An item or an argument does not validate; the message names the field. */
  Invalid: 'E_CONTEXT_INVALID',
  /** A single item larger than its zone can ever hold under the scope's current budget. */
  ItemTooLarge: 'E_CONTEXT_ITEM_TOO_LARGE',
  /** The scope already holds an item with this ctx_id. */
  Duplicate: 'E_CONTEXT_DUPLICATE',
  /** `set_profile` named a profile the budget does not define. */
  UnknownProfile: 'E_CONTEXT_UNKNOWN_PROFILE',
} as const;
export type ContextErrorCode = (typeof ContextErrorCode)[keyof typeof ContextErrorCode];
