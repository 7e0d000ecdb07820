import type { ApprovalCheck, ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { ApprovalEngine, ApprovalSubject, CheckOptions, IssueOptions, VerifyOptions, VerifyResult } from '../../approval/engine.js';
import { spawnedTaskSubject, workItemSubject } from './plan-subjects.js';

/** A parsed work item (hashed here) or a subject whose hashes the caller computed (a gate payload). */
export type PlanTarget = WorkItem | ApprovalSubject;

export interface PlanVerifyOptions extends Omit<VerifyOptions, 'spawned'> {
  /** A standing token: the task the goal spawned, judged against the goal's spawn policy. */
  spawned?: PlanTarget;
}

export interface PlanCheckOptions extends CheckOptions {
  /** For a goal-spawned task under a standing token: its goal, to re-check spawn-policy conformance. */
  goal?: WorkItem;
}

function isSubject(target: PlanTarget): target is ApprovalSubject {
  return typeof target === 'object' && target !== null && 'hash' in target && 'kind' in target;
}

/**
 * The approval engine as the Silas kernel uses it: work items in, subjects out. The engine
 * (src-main/approval/) is a platform layer that never parses a plan; this adapter hashes plans
 * and spawned tasks the way spec 002 §3.6 and §5.11 bind them, then calls it.
 */
export class PlanApprovals {
  constructor(readonly engine: ApprovalEngine) {}

  issueToken(target: PlanTarget, decision: unknown, options?: IssueOptions): ApprovalToken {
    return this.engine.issueToken(subjectOf(target), decision, options);
  }

  verify(token: unknown, target: PlanTarget, options: PlanVerifyOptions = {}): VerifyResult {
    const { spawned, ...rest } = options;
    return this.engine.verify(token, subjectOf(target), { ...rest, ...(spawned ? { spawned: spawnedSubjectOf(target, spawned) } : {}) });
  }

  check(token: unknown, target: PlanTarget, options: PlanCheckOptions = {}): ApprovalCheck {
    const { goal, ...rest } = options;
    const subject = goal && !isSubject(target) ? spawnedTaskSubject(goal, target) : subjectOf(target);
    return this.engine.check(token, subject, rest);
  }
}

function subjectOf(target: PlanTarget): ApprovalSubject {
  return isSubject(target) ? target : workItemSubject(target);
}

/** A spawned work item is judged against its goal's spawn policy only when the goal is a work item too. */
function spawnedSubjectOf(goal: PlanTarget, task: PlanTarget): ApprovalSubject {
  if (isSubject(task)) return task;
  return isSubject(goal) ? { ...workItemSubject(task), spawnPolicyHash: null } : spawnedTaskSubject(goal, task);
}
