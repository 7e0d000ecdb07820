import type { z } from 'zod';
import { SilasError } from '../../../src-shared/errors.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { ApprovalToken } from '../../../src-shared/silas/approval.js';
import { BudgetUsed, WorkItem, WorkItemResult, WorkItemStatus, type WorkItemType } from '../../../src-shared/silas/work.js';
import type { AuditItem as LedgerItem } from '../../../src-shared/audit/events.js';

/*
 * The work item store's rules, apart from its SQL: which status changes make sense, what a
 * runtime change may touch, which approval token a stored item may carry, and the audit entry
 * of a save. Decisions: docs/silas/store-and-cli.md.
 */

export const WorkItemStoreErrorCode = {
  /** The item or an argument does not validate; the message names the field. */
  Invalid: 'E_WORK_ITEM_INVALID',
  NotFound: 'E_WORK_ITEM_NOT_FOUND',
  /** A status change, or a change of runtime state, that the lifecycle does not allow. */
  Transition: 'E_WORK_ITEM_TRANSITION',
  /** A stored row fails validation or its columns disagree with its document: edited outside Silas. */
  Corrupt: 'E_WORK_ITEM_CORRUPT',
} as const;

/** Older verification results are dropped from the item (the audit chain keeps every one). */
export const MAX_VERIFICATION_HISTORY = 500;

/**
 * Allowed status changes. `healthy` belongs to goals (a cycle's outcome) and `done` to tasks and
 * projects; `done` is final. Staying in a status is allowed (progress: attempts, budget), except
 * in `done`. See docs/silas/store-and-cli.md for the reasoning per edge.
 */
const TRANSITIONS: Readonly<Record<WorkItemStatus, readonly WorkItemStatus[]>> = {
  pending: ['running', 'blocked', 'paused', 'failed', 'healthy'],
  running: ['done', 'healthy', 'failed', 'stuck', 'blocked', 'paused'],
  blocked: ['pending', 'running', 'failed', 'paused'],
  paused: ['pending', 'running', 'failed'],
  stuck: ['pending', 'failed'],
  failed: ['pending', 'running', 'healthy', 'paused'],
  healthy: ['running', 'failed', 'paused'],
  done: [],
};
/** Transitions only a recurring goal makes: a new cycle starts from, or reports, its last outcome. */
const GOAL_ONLY: ReadonlyArray<readonly [WorkItemStatus, WorkItemStatus]> = [
  ['failed', 'running'],
  ['failed', 'healthy'],
  ['failed', 'paused'],
  ['pending', 'healthy'],
];

/** Why `from → to` is refused for an item of `type`, or null when it is allowed. */
export function transitionRefusal(type: WorkItemType, from: WorkItemStatus, to: WorkItemStatus): string | null {
  if (to === 'healthy' && type !== 'goal') return `only goals become healthy; a ${type} finishes as done`;
  if (to === 'done' && type === 'goal') return 'a goal never becomes done; its cycles end healthy or failed (pause it to stop)';
  if (from === to) return from === 'done' ? `${type} is already done; done is final` : null;
  if (!TRANSITIONS[from].includes(to)) return `a ${type} cannot go from ${from} to ${to}`;
  if (type !== 'goal' && GOAL_ONLY.some(([a, b]) => a === from && b === to)) {
    return `a ${type} cannot go from ${from} to ${to}; re-queue it as pending (with a new approval) to try again`;
  }
  return null;
}

export type AuditItem = LedgerItem;

export function fail(code: string, message: string): never {
  throw new SilasError(code, message);
}

export function firstIssue(error: z.ZodError, prefix: string): { field: string; message: string } {
  const issue = error.issues[0]!;
  const field = [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(item)';
  return { field, message: issue.message };
}

/** Short, secret-free summary of verification results for the ledger: names and verdicts only. */
export function verificationSummary(results: readonly JsonObject[]): JsonObject[] {
  return results.slice(0, 100).map((r) => ({ name: typeof r.name === 'string' ? r.name.slice(0, 200) : null, passed: r.passed === true }));
}


export function savedEvent(item: WorkItem, hash: string, created: boolean): AuditItem {
  return {
    event: 'silas.work_item.saved',
    data: {
      work_item_id: item.id,
      type: item.type,
      status: item.status,
      plan_hash: hash,
      parent: item.parent,
      created,
      approval_token_id: item.approval_token?.token_id ?? null,
    },
  };
}

export function parseResult(input: WorkItemResult, workItemId: string, status: WorkItemStatus, budget: BudgetUsed): WorkItemResult {
  const parsed = WorkItemResult.safeParse(input);
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error, 'result');
    fail(WorkItemStoreErrorCode.Invalid, `${field}: ${message}`);
  }
  const result = parsed.data;
  if (result.work_item_id !== workItemId) fail(WorkItemStoreErrorCode.Invalid, `result.work_item_id is ${result.work_item_id}, not ${workItemId}`);
  if (result.status !== status) fail(WorkItemStoreErrorCode.Invalid, `result.status is ${result.status} but the status given is ${status}`);
  if (JSON.stringify(result.budget_used) !== JSON.stringify(budget)) fail(WorkItemStoreErrorCode.Invalid, 'result.budget_used differs from the budget_used given');
  return result;
}

/**
 * A token is addressed to an item when it names the item and its current plan hash, or when it
 * is the standing approval of the goal that spawned the item (§5.2.3). Only the address is
 * checked here; the signature, expiry and consumption are the approval engine's.
 */
export function checkTokenAddress(item: WorkItem, token: ApprovalToken | null, hash: string): void {
  if (token === null) return;
  if (token.scope === 'standing' && item.parent !== null && token.work_item_id === item.parent) return;
  if (token.work_item_id !== item.id) {
    fail(WorkItemStoreErrorCode.Invalid, `approval_token.work_item_id: the token approves ${token.work_item_id}, not ${item.id}`);
  }
  if (token.plan_hash !== hash) {
    fail(
      WorkItemStoreErrorCode.Invalid,
      `approval_token.plan_hash: the token approves plan ${token.plan_hash.slice(0, 8)}… but ${item.id} now hashes to ${hash.slice(0, 8)}…; an edited plan needs a new approval (save it with approval_token: null first)`,
    );
  }
}

/**
 * Runtime state only moves forward: the status along an allowed transition, attempts and every
 * budget counter never lower, the verification history only appended to. Pushes a
 * `status_changed` entry when the status, attempts, budget or history changed.
 */
export function checkRuntimeChange(stored: WorkItem, next: WorkItem, audit: AuditItem[], reason?: string, appended?: readonly JsonObject[]): WorkItem {
  const refusal = transitionRefusal(stored.type, stored.status, next.status);
  if (refusal) fail(WorkItemStoreErrorCode.Transition, `${stored.id}: ${refusal}`);
  if (next.attempts < stored.attempts) fail(WorkItemStoreErrorCode.Transition, `${stored.id}: attempts cannot go down (${stored.attempts} → ${next.attempts})`);
  for (const key of Object.keys(stored.budget_used) as Array<keyof BudgetUsed>) {
    if (next.budget_used[key] < stored.budget_used[key]) {
      fail(WorkItemStoreErrorCode.Transition, `${stored.id}: budget_used.${key} cannot go down (${stored.budget_used[key]} → ${next.budget_used[key]}); consumption is cumulative`);
    }
  }
  const before = stored.verification_results;
  const after = next.verification_results;
  if (after.length < before.length || before.some((entry, i) => JSON.stringify(entry) !== JSON.stringify(after[i]))) {
    fail(WorkItemStoreErrorCode.Transition, `${stored.id}: verification_results is a history; append to it, never rewrite or remove entries`);
  }
  const added = appended ?? after.slice(before.length);
  const changed =
    stored.status !== next.status || stored.attempts !== next.attempts || JSON.stringify(stored.budget_used) !== JSON.stringify(next.budget_used) || added.length > 0;
  if (changed) {
    audit.push({
      event: 'silas.work_item.status_changed',
      data: {
        work_item_id: stored.id,
        from: stored.status,
        to: next.status,
        attempts: next.attempts,
        budget_used: { ...next.budget_used },
        ...(reason ? { reason: reason.slice(0, 500) } : {}),
        ...(added.length > 0 ? { verification: verificationSummary(added) } : {}),
      },
    });
  }
  return next;
}
