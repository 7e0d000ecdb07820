import { z } from 'zod';
import { UtcInstant } from './approval.js';
import { WorkItemId } from './work.js';

/**
 * Batch review models of spec 002 §3.11: a goal proposes one domain action over a batch of items,
 * the person approves, declines or narrows the selection, and the approval token is bound to the
 * exact `{goal_id, action, item_ids, count}` (see `batchHash` in src-main/silas/work/hashes.ts).
 * Field names keep the spec's snake_case, as the other Silas models do.
 */

const Confidence = z.number({ error: 'expected a confidence between 0 and 1' }).min(0, { error: 'confidence is at least 0' }).max(1, { error: 'confidence is at most 1' });
const Text = (max: number) => z.string().max(max, { error: `at most ${max} characters` });
const Required = (max: number) => z.string().min(1, { error: 'must not be empty' }).max(max, { error: `at most ${max} characters` });
/** Domain timestamps (a mail's Date header, a ticket's update time) may carry an offset. */
const Instant = z.iso.datetime({ offset: true, error: 'expected an ISO-8601 timestamp with Z or an offset' });

/** §3.11 BatchActionType: a domain-defined action key such as `archive` or `close_ticket`. */
const BatchActionKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.:-]{0,99}$/, { error: 'action keys are 1-100 lowercase letters, digits, _ . : - (e.g. archive, mark_read)' });

/** Item ids are domain ids (mail ids, ticket numbers); printable, no whitespace, so they cannot blur in a list. */
const BatchItemId = z.string().regex(/^[\x21-\x7e]{1,500}$/, { error: 'item ids are 1-500 printable ASCII characters without spaces' });

export const BatchActionItem = z
  .object({
    item_id: BatchItemId,
    title: Text(1000),
    actor: Text(500),
    occurred_at: Instant,
    reason: Text(2000),
    confidence: Confidence,
  })
  .strict();
export type BatchActionItem = z.infer<typeof BatchActionItem>;

/** Bounds a batch so a single tap never authorises an unbounded action (config sets the usual size). */
export const MAX_BATCH_ITEMS = 1000;

function uniqueIds(ids: readonly string[], ctx: z.RefinementCtx, path: (index: number) => Array<string | number>): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path: path(index), message: `item "${id}" appears twice; a batch names each item once` });
    seen.add(id);
  });
}

export const BatchProposal = z
  .object({
    /** Metadata only: never the authorization hash (§3.11). */
    batch_id: Required(200),
    goal_id: WorkItemId,
    action: BatchActionKey,
    items: z.array(BatchActionItem).min(1, { error: 'a batch needs at least one item' }).max(MAX_BATCH_ITEMS, { error: `at most ${MAX_BATCH_ITEMS} items` }),
    reason_summary: Text(4000),
    confidence_min: Confidence,
    created_at: UtcInstant,
  })
  .strict()
  .superRefine((proposal, ctx) => {
    uniqueIds(
      proposal.items.map((item) => item.item_id),
      ctx,
      (index) => ['items', index, 'item_id'],
    );
    // Overstating the batch's confidence would present it as safer than its weakest item.
    const lowest = Math.min(...proposal.items.map((item) => item.confidence));
    if (proposal.confidence_min > lowest) {
      ctx.addIssue({ code: 'custom', path: ['confidence_min'], message: `confidence_min ${proposal.confidence_min} exceeds the lowest item confidence ${lowest}` });
    }
  });
export type BatchProposal = z.infer<typeof BatchProposal>;

export const BatchActionVerdict = z.enum(['approve', 'decline', 'edit_selection']);
export type BatchActionVerdict = z.infer<typeof BatchActionVerdict>;

/**
 * §3.11 BatchActionDecision. `selected_item_ids` is required for `edit_selection` and ignored
 * otherwise, so it is normalised to `[]` for the other verdicts: nothing downstream can act on it.
 */
export const BatchActionDecision = z
  .object({
    verdict: BatchActionVerdict,
    selected_item_ids: z.array(BatchItemId).max(MAX_BATCH_ITEMS).default([]),
  })
  .strict()
  .superRefine((decision, ctx) => {
    if (decision.verdict === 'edit_selection') {
      if (decision.selected_item_ids.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['selected_item_ids'], message: 'edit_selection needs the ids of the items to keep (at least one); decline instead to act on none' });
      }
      uniqueIds(decision.selected_item_ids, ctx, (index) => ['selected_item_ids', index]);
    }
  })
  .transform((decision) => (decision.verdict === 'edit_selection' ? decision : { ...decision, selected_item_ids: [] }));
export type BatchActionDecision = z.infer<typeof BatchActionDecision>;

/** What a batch approval token is bound to (§3.11 "Batch security binding rule"); `count` is derived. */
export interface BatchBinding {
  goal_id: string;
  action: string;
  item_ids: readonly string[];
}

/**
 * The binding the person's decision authorises, or null for `decline`. An edited selection keeps
 * the proposal's order, so the hash does not depend on the order the person ticked items in; ids
 * not in the proposal are refused rather than dropped, since the person asked for something else.
 */
export function batchBindingFor(proposal: BatchProposal, decision: BatchActionDecision): BatchBinding | null {
  if (decision.verdict === 'decline') return null;
  const proposed = proposal.items.map((item) => item.item_id);
  if (decision.verdict === 'approve') return { goal_id: proposal.goal_id, action: proposal.action, item_ids: proposed };
  const known = new Set(proposed);
  const unknown = decision.selected_item_ids.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new Error(`selected_item_ids: not in batch ${proposal.batch_id}: ${unknown.join(', ')}`);
  const selected = new Set(decision.selected_item_ids);
  return { goal_id: proposal.goal_id, action: proposal.action, item_ids: proposed.filter((id) => selected.has(id)) };
}

export const DecisionOption = z
  .object({
    label: Required(200),
    value: Required(500),
    approval_tier: z.literal('tap').default('tap'),
  })
  .strict();
export type DecisionOption = z.infer<typeof DecisionOption>;

const SuggestionSource = z.enum(['idle_heartbeat', 'post_execution', 'goal_monitor']);

const SuggestionRiskLevel = z.enum(['low', 'medium', 'high', 'irreversible']);

/** §3.11 SuggestionProposal: a proactive "what next" card. */
export const SuggestionProposal = z
  .object({
    suggestion_id: Required(200),
    scope_id: Required(200),
    source: SuggestionSource,
    intent: Required(500),
    rationale: Text(4000),
    risk_level: SuggestionRiskLevel,
    proposed_work_item_id: WorkItemId.nullable().default(null),
    cooldown_key: Required(200),
    created_at: UtcInstant,
  })
  .strict();
export type SuggestionProposal = z.infer<typeof SuggestionProposal>;

const AutonomyThresholdKey = z.enum([
  'standing.scope',
  'standing.max_executions',
  'standing.expires_at',
  'batch_review.default_size',
  'batch_review.confidence.high_min',
]);

export const AutonomyThresholdChange = z
  .object({
    key: AutonomyThresholdKey,
    current_value: Text(200),
    proposed_value: Text(200),
    direction: z.enum(['widen', 'tighten']),
  })
  .strict()
  .refine((change) => change.current_value !== change.proposed_value, {
    path: ['proposed_value'],
    error: 'proposed_value equals current_value; a change must change something',
  });
export type AutonomyThresholdChange = z.infer<typeof AutonomyThresholdChange>;

/** §3.11 AutonomyThresholdProposal: widening or tightening autonomy, always behind an approval. */
export const AutonomyThresholdProposal = z
  .object({
    proposal_id: Required(200),
    scope_id: Required(200),
    goal_id: WorkItemId.nullable().default(null),
    changes: z.array(AutonomyThresholdChange).min(1, { error: 'a proposal needs at least one change' }).max(16),
    sample_size: z.number().int().min(0),
    correction_rate: z.number().min(0).max(1),
    evidence_window: Text(500),
    rationale: Text(4000),
    risk_level: z.enum(['medium', 'high']),
    created_at: UtcInstant,
  })
  .strict()
  .superRefine((proposal, ctx) => {
    const seen = new Set<string>();
    proposal.changes.forEach((change, index) => {
      if (seen.has(change.key)) ctx.addIssue({ code: 'custom', path: ['changes', index, 'key'], message: `"${change.key}" is changed twice in one proposal` });
      seen.add(change.key);
    });
  });
export type AutonomyThresholdProposal = z.infer<typeof AutonomyThresholdProposal>;
