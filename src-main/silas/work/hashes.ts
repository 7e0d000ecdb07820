import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../src-shared/canonical.js';
import type { BatchBinding } from '../../../src-shared/silas/review.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';

/**
 * The three authorization hashes of spec 002: the plan hash (§3.3), the spawn-policy hash (§3.6)
 * and the batch hash (§3.11). Each is SHA-256 (lowercase hex) over the UTF-8 bytes of the RFC 8785
 * canonical JSON of a fixed projection. For ASCII text and integral or short decimal numbers these
 * bytes equal Python's `json.dumps(obj, sort_keys=True, separators=(",", ":"))`; the differences
 * (non-ASCII is written raw, not `\uXXXX`; 2.0 is written `2`) are recorded in docs/silas/work-models.md.
 */

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** §3.3 "Included fields": what an approval is bound to. Order is irrelevant (keys are sorted). */
export const PLAN_HASH_FIELDS = [
  'id',
  'type',
  'title',
  'parent',
  'spawned_by',
  'follow_up_of',
  'domain',
  'agent',
  'budget',
  'body',
  'interaction_mode',
  'input_artifacts_from',
  'verify',
  'gates',
  'skills',
  'access_levels',
  'escalation',
  'schedule',
  'on_failure',
  'on_stuck',
  'failure_context',
  'tasks',
  'depends_on',
] as const satisfies ReadonlyArray<keyof WorkItem>;

/** §3.3 "Excluded fields": runtime state that changes after approval without changing the plan. */
export const PLAN_HASH_EXCLUDED_FIELDS = [
  'approval_token',
  'needs_approval',
  'status',
  'attempts',
  'budget_used',
  'verification_results',
  'created_at',
] as const satisfies ReadonlyArray<keyof WorkItem>;

export type PlanProjection = Pick<WorkItem, (typeof PLAN_HASH_FIELDS)[number]>;

/**
 * The canonical approval projection of a parsed WorkItem. A field that is somehow undefined is
 * written as null, so every projection has the same 23 keys.
 */
export function planProjection(item: WorkItem): PlanProjection {
  const projection: Record<string, unknown> = {};
  for (const field of PLAN_HASH_FIELDS) projection[field] = item[field] ?? null;
  return projection as PlanProjection;
}

/** The exact text the plan hash is taken over (§3.3 `work_item_plan_hash_bytes`, as a string). */
export function planHashText(item: WorkItem): string {
  return canonicalJson(planProjection(item));
}

/**
 * §3.3 plan hash: what `ApprovalToken.plan_hash` binds. Pass a WorkItem as parsed by the
 * `WorkItem` schema or `parsePlan` (defaults filled), so that two spellings of one plan agree.
 */
export function planHash(item: WorkItem): string {
  return sha256Hex(planHashText(item));
}

/** The goal fields the spawn policy is built from. */
export type SpawnPolicySource = Pick<WorkItem, 'failure_context' | 'skills' | 'gates' | 'verify' | 'escalation' | 'on_failure'>;

/** Python's `sorted()` on str orders by code point; JS `sort()` by UTF-16 unit. They differ above U+FFFF. */
function byCodePoint(a: string, b: string): number {
  const left = Array.from(a, (ch) => ch.codePointAt(0)!);
  const right = Array.from(b, (ch) => ch.codePointAt(0)!);
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    if (left[i] !== right[i]) return left[i]! - right[i]!;
  }
  return left.length - right.length;
}

/**
 * §3.6 spawn-policy projection, field for field: the raw `failure_context` template (with its
 * `$failed_checks` placeholder, never the per-cycle text), sorted unique skills, gates and checks
 * each as a canonical JSON string then sorted, and the escalation entries that `on_failure` or a
 * gate's `on_block` name and that the goal defines.
 */
export function spawnPolicyProjection(goal: SpawnPolicySource): Record<string, unknown> {
  const gates = goal.gates ?? [];
  const escalation = goal.escalation ?? {};
  const referenced = new Set([goal.on_failure, ...gates.map((gate) => gate.on_block).filter((name) => Boolean(name))]);
  const names = [...referenced].filter((name) => Object.hasOwn(escalation, name)).sort(byCodePoint);
  return {
    failure_context_template: goal.failure_context ?? '',
    skills: [...new Set(goal.skills ?? [])].sort(byCodePoint),
    gates: gates.map((gate) => canonicalJson(gate)).sort(byCodePoint),
    verify: (goal.verify ?? []).map((check) => canonicalJson(check)).sort(byCodePoint),
    escalation_config: Object.fromEntries(names.map((name) => [name, escalation[name]])),
  };
}

/** §3.6 `spawn_policy_hash`: binds a standing approval to the class of tasks a goal may spawn. */
export function spawnPolicyHash(goal: SpawnPolicySource): string {
  return sha256Hex(canonicalJson(spawnPolicyProjection(goal)));
}

/** §3.11 canonical batch projection `{goal_id, action, item_ids, count}`; item order is kept. */
export function batchProjection(binding: BatchBinding): { goal_id: string; action: string; item_ids: string[]; count: number } {
  if (binding.goal_id.length === 0 || binding.action.length === 0) throw new Error('batch binding: goal_id and action must not be empty');
  if (binding.item_ids.length === 0) throw new Error('batch binding: item_ids must name at least one item');
  if (new Set(binding.item_ids).size !== binding.item_ids.length) throw new Error('batch binding: item_ids must not repeat an item');
  return { goal_id: binding.goal_id, action: binding.action, item_ids: [...binding.item_ids], count: binding.item_ids.length };
}

/**
 * §3.11 batch hash, used as `plan_hash` of a batch approval token. Any change to the goal, the
 * action, the items or their order yields a different hash, so it needs a fresh approval.
 */
export function batchHash(binding: BatchBinding): string {
  return sha256Hex(canonicalJson(batchProjection(binding)));
}
