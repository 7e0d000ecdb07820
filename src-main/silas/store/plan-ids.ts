import { randomBytes } from 'node:crypto';
import type { WorkItem } from '../../../src-shared/silas/work.js';

/*
 * Whether a plan's id can still run in this home, asked when the plan is proposed rather than
 * after the person has signed it (spec 002 §0.5.4: never offer a decision that cannot be used;
 * §5.1.2: the signature binds the plan hash, which covers the id). Every path that proposes a plan
 * asks here: the Stream re-identifies a model's plan, `silas run` and `plans.requestApproval`
 * refuse a person's, and the executor checks again before it consumes a token.
 * docs/silas/store-and-cli.md "Plan ids".
 */

/** What the work item store holds under an id; may throw when the stored row cannot be read. */
export interface PlanIdLookup {
  stored(id: string): Pick<WorkItem, 'status' | 'type'> | null;
  /** Plans proposed but not yet stored (the Stream's plans awaiting approval or running). */
  inFlight?(id: string): boolean;
}

export interface PlanIdConflict {
  id: string;
  /** Why, in the person's words: what is already there under this id. */
  reason: string;
  /** What to do about it when the person wrote the plan. */
  fix: string;
}

/**
 * Why a plan with this id and type could not run in this home, or null when it can. A stored
 * item that is `done` is final (work-item-rules.ts TRANSITIONS); a stored item of another type
 * cannot become this one; an unreadable one is refused rather than guessed at (fail closed).
 */
export function planIdConflict(item: Pick<WorkItem, 'id' | 'type'>, lookup: PlanIdLookup): PlanIdConflict | null {
  const fix = 'give the plan a new id and ask again';
  let stored: Pick<WorkItem, 'status' | 'type'> | null;
  try {
    stored = lookup.stored(item.id);
  } catch (error) {
    return { id: item.id, reason: `the work item ${item.id} stored in this home cannot be read (${(error as Error).message})`, fix };
  }
  if (stored?.status === 'done') return { id: item.id, reason: `${item.id} already ran to done in this home, and a finished work item never runs again`, fix };
  if (stored && stored.type !== item.type) return { id: item.id, reason: `${item.id} is already a ${stored.type} in this home, and a plan cannot turn it into a ${item.type}`, fix };
  if (lookup.inFlight?.(item.id)) return { id: item.id, reason: `a plan with id ${item.id} is already waiting for approval or running`, fix };
  return null;
}

/** The refusal as one sentence, for a plan the person wrote (`silas run`, `plans.requestApproval`). */
export function planIdRefusal(conflict: PlanIdConflict): string {
  return `${conflict.reason}; ${conflict.fix}`;
}

export type Reidentified = { item: WorkItem; renamed: null } | { item: WorkItem; renamed: { from: string; to: string; reason: string } };

const MAX_SUFFIX = 10_000;
/** WorkItemId is at most 200 characters; room is kept for the suffix. */
const MAX_BASE = 180;

/**
 * A model's plan whose id collides is given a fresh one (`ID-2`, `ID-3`, …): an id never used in
 * this home and not in flight, so the plan starts as a new work item. Done BEFORE the plan hash
 * is computed and its card built, so what the person signs carries the final id. A plan whose id
 * is free comes back unchanged.
 */
export function reidentifyPlan(item: WorkItem, lookup: PlanIdLookup): Reidentified {
  const conflict = planIdConflict(item, lookup);
  if (conflict === null) return { item, renamed: null };
  const base = item.id.slice(0, MAX_BASE);
  for (let n = 2; n <= MAX_SUFFIX; n += 1) {
    const candidate = `${base}-${n}`;
    if (unused(candidate, lookup)) return { item: { ...item, id: candidate }, renamed: { from: item.id, to: candidate, reason: conflict.reason } };
  }
  // Ten thousand taken: 64 random bits cannot collide in practice.
  const random = `${base}-${randomBytes(8).toString('hex')}`;
  return { item: { ...item, id: random }, renamed: { from: item.id, to: random, reason: conflict.reason } };
}

function unused(id: string, lookup: PlanIdLookup): boolean {
  try {
    return lookup.stored(id) === null && lookup.inFlight?.(id) !== true;
  } catch {
    return false;
  }
}
