import { z } from 'zod';
import { canonicalJson } from '../canonical.js';
import { ModelProvider, ModelRole, SECRET_NAME_PATTERN } from '../llm/config.js';
import { TaintLevel } from '../silas/execution.js';
import { ContextItemKind, ContextZone, SubscriptionTarget, SubscriptionType } from '../silas/context.js';
import { ApprovalToken } from '../silas/approval.js';
import { WorkItem } from '../silas/work.js';

/*
 * The Stream's message protocol (spec 002 §8.1) as it travels over our control plane: the calls
 * `stream.open|send|cancel` and one event, `stream.event`, sent only to the session that holds
 * the scope (docs/silas/stream.md). Field names keep the spec's snake_case where the spec names
 * them (`turn_id`, `work_item_id`); everything is bounded so a runaway model answer cannot become
 * a megabyte frame.
 */

/** A conversation scope (§5.1: one per connection). Public: it appears in the ledger. */
export const StreamScopeId = z.string().regex(/^scope-[A-Za-z0-9_-]{16,32}$/, { error: 'expected a scope id such as "scope-…" as stream.open returned it' });
export type StreamScopeId = z.infer<typeof StreamScopeId>;

/** The secret that lets a later connection (after a reload or a restart) resume a scope. Never in the ledger. */
export const StreamScopeKey = z.string().regex(/^[A-Za-z0-9_-]{43}$/, { error: 'expected the 43-character resume key stream.open returned with the scope' });
export type StreamScopeKey = z.infer<typeof StreamScopeKey>;

const MAX_STREAM_MESSAGE_CHARS = 20_000;
export const MAX_STREAM_HISTORY = 200;

export const StreamSender = z.enum(['person', 'silas', 'system']);
export type StreamSender = z.infer<typeof StreamSender>;

/** One line of the conversation as a channel shows it (§8.1 server→client `message`). */
export const StreamMessage = z.strictObject({
  id: z.string().max(200),
  sender: StreamSender,
  text: z.string().max(200_000),
  taint: TaintLevel,
  turn: z.number().int().nonnegative(),
  timestamp: z.string().max(40),
});
export type StreamMessage = z.infer<typeof StreamMessage>;

/** Whether the Stream can talk to a model yet (§1.5 first run), role by role; never a key. */
export const ModelRoleStatus = z.strictObject({
  role: ModelRole,
  configured: z.boolean(),
  provider: ModelProvider.nullable(),
  model: z.string().max(300).nullable(),
  base_url: z.string().max(2000).nullable(),
  /** The keyring secret's NAME, and whether the keyring holds it. */
  key_secret: z.string().max(64).nullable(),
  key_present: z.boolean(),
  problem: z.string().max(2000).nullable(),
});
export type ModelRoleStatus = z.infer<typeof ModelRoleStatus>;

export const ModelsStatus = z.strictObject({
  /** The roles a turn needs (proxy, planner, executor) are configured and have their keys. */
  ready: z.boolean(),
  roles: z.array(ModelRoleStatus),
  /** Why the models file could not be read, with the fix. */
  problem: z.string().max(2000).nullable(),
});
export type ModelsStatus = z.infer<typeof ModelsStatus>;

export const StreamOpenArgs = z.strictObject({
  /** Continue a conversation this client had (after a reload or a restart of the runtime). */
  resume: z.strictObject({ scope: StreamScopeId, key: StreamScopeKey }).optional(),
});

export const StreamOpenResult = z.strictObject({
  scope: StreamScopeId,
  key: StreamScopeKey,
  resumed: z.boolean(),
  history: z.array(StreamMessage).max(MAX_STREAM_HISTORY),
  /** A turn of this scope is running (its events follow). */
  busy: z.boolean(),
  models: ModelsStatus,
});
export type StreamOpenResult = z.infer<typeof StreamOpenResult>;

/**
 * §5.12: an owner-signed message (Ed25519 by the keyring's owner key over `signedMessageText`),
 * fresh (timestamp within the window) and with an unused nonce, gets taint `owner`; anything
 * else that claims a signature is taken as `external` and audited.
 */
export const SignedMessageProof = z.strictObject({
  nonce: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, { error: 'expected a random nonce of 16 to 128 base64url characters' }),
  timestamp: z.string().datetime({ offset: true, error: 'expected an ISO 8601 timestamp' }),
  signature: z.string().regex(/^[A-Za-z0-9+/]{86}==$/, { error: 'expected a base64 Ed25519 signature (88 characters)' }),
});
export type SignedMessageProof = z.infer<typeof SignedMessageProof>;

/** The exact bytes a message signature covers: scope, text, nonce and time, canonical JSON. */
export function signedMessageText(message: { scope: string; text: string; nonce: string; timestamp: string }): string {
  return canonicalJson({ domain: 'silas.stream.message.v1', scope: message.scope, text: message.text, nonce: message.nonce, timestamp: message.timestamp });
}

export const StreamSendArgs = z.strictObject({
  scope: StreamScopeId,
  signed: SignedMessageProof.optional(),
  text: z
    .string({ error: 'expected the message text' })
    .trim()
    .min(1, { error: 'the message is empty; type something to send' })
    .max(MAX_STREAM_MESSAGE_CHARS, { error: `a message has at most ${MAX_STREAM_MESSAGE_CHARS} characters; split it or attach a file to a plan instead` }),
});

export const StreamSendResult = z.strictObject({
  turn_id: z.string().max(100),
  /** Turns of this scope ahead of this one (§5.1: one at a time per connection). */
  queued_behind: z.number().int().nonnegative(),
});

export const StreamApproveArgs = z.strictObject({
  scope: StreamScopeId,
  work_item_id: z.string().min(1).max(200),
  token: ApprovalToken,
});

export const StreamCancelResult = z.strictObject({ cancelled: z.boolean() });

/*
 * §5.7 `context_inspection` for the person (`stream.context`): what a conversation's context holds
 * and why, zone by zone, described item by item, with the budgets of the active profile and the
 * last eviction. Read-only; only the session holding the scope may read it (docs/silas/context.md).
 */

/** Items listed per zone at most (the newest); the rest are counted in `omitted`. */
export const MAX_CONTEXT_ITEMS_SHOWN = 200;
export const CONTEXT_EXCERPT_CHARS = 120;
const count = z.number().int().nonnegative();

export const ContextItemView = z.strictObject({
  ctx_id: z.string().max(200),
  kind: ContextItemKind,
  /** Where it came from: `channel:cockpit`, `agent:proxy`, `memory:conversation_raw`, `tool:NAME:succeeded`. */
  source: z.string().max(200),
  taint: TaintLevel,
  tokens: count,
  /** The retriever's score for a memory; 1 for live content (§3.5). */
  relevance: z.number(),
  /** Never evicted (the harness pinned it: a plan waiting for approval, the system zone). */
  pinned: z.boolean(),
  /** An old tool result replaced by its placeholder (§5.7 observation masking). */
  masked: z.boolean(),
  turn: count,
  created_at: z.string().max(40),
  /** The first characters of its text (a masked item's placeholder). */
  excerpt: z.string().max(CONTEXT_EXCERPT_CHARS + 1),
});
export type ContextItemView = z.infer<typeof ContextItemView>;

const ContextZoneView = z.strictObject({
  zone: ContextZone,
  tokens: count,
  /** The zone's budget under the active profile (§3.5 headroom math); the system zone's is `system_max`. */
  budget: count,
  /** The profile's share of the allocable budget; null for the system zone. */
  share: z.number().min(0).max(1).nullable(),
  items: z.array(ContextItemView).max(MAX_CONTEXT_ITEMS_SHOWN),
  /** Older items not listed. */
  omitted: count,
});

const ContextEvictionView = z.strictObject({
  turn: count,
  /** `heuristic`: Tier 1 alone; `scorer`: the scorer model's groups; `fallback`: the aggressive heuristic of Tier 2 (§5.7). */
  tier: z.enum(['heuristic', 'scorer', 'fallback']),
  why: z.string().max(2000),
  at: z.string().max(40),
  items: z
    .array(
      z.strictObject({
        ctx_id: z.string().max(200),
        zone: ContextZone,
        kind: ContextItemKind,
        tokens: count,
        reason: z.enum(['trivial_acknowledgement', 'zone_policy', 'scorer', 'aggressive_heuristic']),
      }),
    )
    .max(MAX_CONTEXT_ITEMS_SHOWN),
  omitted: count,
});

/** A context subscription as the inspector lists it (spec 002 §3.5 ContextSubscription; docs/silas/context.md "Subscriptions"). */
export const SubscriptionView = z.strictObject({
  sub_id: z.string().max(200),
  sub_type: SubscriptionType,
  target: z.string().max(4096),
  zone: ContextZone,
  active: z.boolean(),
  /** Tokens of its block now; 0 while inactive or shown in another subscription's block. */
  tokens: count,
  turn_created: count,
  created_at: z.string().max(40),
  /** The turn its content last changed; null before it was first read. */
  last_changed: count.nullable(),
  /** A line range whose lines changed since it was subscribed: the turn that was first seen. */
  stale_since: count.nullable(),
  /** The subscription whose block shows this one's content (a whole file, or a merged range). */
  covered_by: z.string().max(200).nullable(),
  /** Why it is inactive, in words. */
  note: z.string().max(500).nullable(),
});
export type SubscriptionView = z.infer<typeof SubscriptionView>;

/** Subscriptions a conversation may hold (src-main/silas/context/subscriptions.ts). */
const MAX_SUBSCRIPTIONS_SHOWN = 50;

export const StreamSubscribeArgs = z.union([
  z.strictObject({ scope: StreamScopeId, sub_type: SubscriptionType, target: SubscriptionTarget }),
  /** Activates a deactivated subscription again. */
  z.strictObject({ scope: StreamScopeId, reactivate: z.string().min(1).max(200) }),
]);

export const StreamSubscribeResult = z.strictObject({ sub_id: z.string().max(200), subscription: SubscriptionView });

export const StreamUnsubscribeArgs = z.strictObject({
  scope: StreamScopeId,
  sub_id: z.string({ error: 'expected sub_id, the subscription to deactivate (stream.context lists them)' }).min(1).max(200),
  /** Forget it entirely instead of deactivating it. */
  remove: z.boolean().default(false),
});

export const StreamUnsubscribeResult = z.strictObject({ sub_id: z.string().max(200), removed: z.boolean() });

export const StreamContextView = z.strictObject({
  scope: StreamScopeId,
  /** Turns completed in the conversation. */
  turns: count,
  /** The active context profile (§3.5; the Proxy's `context_profile`, else the default). */
  profile: z.string().max(64),
  total_budget: count,
  /** Tokens in every zone together. */
  used: count,
  /** `eviction_threshold_pct` of the total, in tokens: above it, two-tier eviction runs. */
  threshold: count,
  /** The window left after the system zone, shared out by the profile. */
  allocable: count,
  headroom: count,
  zones: z.array(ContextZoneView).length(4),
  last_eviction: ContextEvictionView.nullable(),
  /** The conversation's context subscriptions, active or not, in the order they were made. */
  subscriptions: z.array(SubscriptionView).max(MAX_SUBSCRIPTIONS_SHOWN),
});
export type StreamContextView = z.infer<typeof StreamContextView>;

/** Tokens and money one turn spent, for the Stream page's meter (§5.13). */
export const TurnUsage = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  /** Null when no role that answered has a price. */
  cost_usd: z.number().nonnegative().nullable(),
  model_calls: z.number().int().nonnegative(),
});
export type TurnUsage = z.infer<typeof TurnUsage>;

export const TurnOutcome = z.enum(['answered', 'planned', 'blocked', 'cancelled', 'failed']);
export type TurnOutcome = z.infer<typeof TurnOutcome>;

export const WorkProgressStatus = z.enum(['awaiting_approval', 'declined', 'approved', 'running', 'verification_failed', 'done', 'blocked', 'failed', 'stuck']);
export type WorkProgressStatus = z.infer<typeof WorkProgressStatus>;

/**
 * A chip of a decision asked in the Stream (§0.5 item 8: chips, not prose). A chip with a
 * `source` is a suggestion someone other than the person wrote (the executor's next steps, written
 * after reading tool output: taint `external`, §5.12). A channel labels it as such and never sends
 * it as the person's words unless the person picks it: the cockpit puts its text in the composer,
 * `silas chat` sends it unsigned (external). docs/silas/stream.md "Taint of what the executor wrote".
 */
export const DecisionChip = z.strictObject({
  value: z.string().max(200),
  label: z.string().max(200),
  source: z.enum(['executor']).optional(),
  taint: TaintLevel.optional(),
});
export type DecisionChip = z.infer<typeof DecisionChip>;

/**
 * A chip someone other than Silas answering the person wrote (the executor's next steps, or any
 * chip from external content, spec 002 §5.12): a suggestion, never sent as the person's words.
 */
export function isSuggestionChip(chip: Pick<DecisionChip, 'source' | 'taint'>): boolean {
  return chip.source !== undefined || chip.taint === 'external';
}

const base = { scope: StreamScopeId };

/** Everything the Stream pushes to the session holding a scope. */
export const StreamEvent = z.discriminatedUnion('type', [
  z.strictObject({ ...base, type: z.literal('turn_started'), turn_id: z.string().max(100), turn: z.number().int().nonnegative(), message: StreamMessage }),
  /** Streamed tokens of the answer being written; provisional until `message`. */
  z.strictObject({ ...base, type: z.literal('draft'), turn_id: z.string().max(100), delta: z.string().max(100_000) }),
  /** The draft so far is void (a repair attempt, or output gates hold the answer). */
  z.strictObject({ ...base, type: z.literal('draft_reset'), turn_id: z.string().max(100), reason: z.string().max(500) }),
  z.strictObject({ ...base, type: z.literal('message'), turn_id: z.string().max(100).nullable(), message: StreamMessage, chips: z.array(DecisionChip).max(10) }),
  /** A plan waits for the person in Review (its card carries the hash they sign). */
  z.strictObject({
    ...base,
    type: z.literal('work'),
    work_item_id: z.string().max(200),
    title: z.string().max(500),
    status: WorkProgressStatus,
    detail: z.string().max(5000),
    plan_hash: z.string().max(100).nullable(),
    review_id: z.string().max(200).nullable(),
    /** While awaiting approval: the exact plan the hash covers, for a channel that shows and signs it itself (`silas chat --approve-here`). */
    item: WorkItem.nullable().default(null),
    /** `external` when `detail` carries what the executor wrote after reading tool output (its summary), §5.12; absent: the runtime's own words. */
    detail_taint: TaintLevel.optional(),
  }),
  z.strictObject({ ...base, type: z.literal('turn_finished'), turn_id: z.string().max(100), outcome: TurnOutcome, usage: TurnUsage, error: z.string().max(2000).nullable() }),
]);
export type StreamEvent = z.infer<typeof StreamEvent>;

/**
 * First run (§1.5): one model for the given roles, from the cockpit. It names the keyring secret
 * holding the API key; the key itself never travels with it (§8.1 secure input: it is stored
 * first, through `POST /secrets/NAME` in a browser or `secrets.store` over IPC).
 */
export const ModelsConfigureArgs = z.strictObject({
  provider: ModelProvider,
  model: z.string().trim().min(1, { error: 'write the model name the provider knows it by' }).max(300),
  base_url: z.string().max(2000).optional(),
  api_key_secret: z.string().max(64).optional(),
  roles: z.array(ModelRole).min(1).max(4).default(['proxy', 'planner', 'executor', 'scorer']),
});
export type ModelsConfigureArgs = z.input<typeof ModelsConfigureArgs>;

/** §8.1 secure input: where a browser cockpit POSTs a secret (`{"value": "…"}`), never over the WebSocket. */
export const SECRET_INPUT_PATH = '/secrets/';
export const MAX_SECRET_VALUE_CHARS = 10_000;

export const SecretStoreArgs = z.strictObject({
  name: z.string().regex(SECRET_NAME_PATTERN, { error: 'a secret name is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit' }),
  value: z
    .string({ error: 'expected the secret as text' })
    .min(1, { error: 'the secret is empty; paste the key' })
    .max(MAX_SECRET_VALUE_CHARS, { error: `a secret has at most ${MAX_SECRET_VALUE_CHARS} characters` }),
});

export const ModelsTestResult = z.strictObject({
  ok: z.boolean(),
  role: ModelRole,
  latency_ms: z.number().nonnegative(),
  message: z.string().max(2000),
});
export type ModelsTestResult = z.infer<typeof ModelsTestResult>;
