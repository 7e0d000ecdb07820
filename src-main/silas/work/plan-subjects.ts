import type { WorkItem } from '../../../src-shared/silas/work.js';
import { planHash, spawnPolicyHash } from './hashes.js';
import type { ApprovalSubject } from '../../approval/engine.js';

// The approval engine (src-main/approval/) knows subjects only as {kind, id, hash}; a plan is
// hashed here, by the product that knows what a plan is (docs/silas/approval.md).

export const FAILED_CHECKS_PLACEHOLDER = '$failed_checks';

/** A work item as the engine sees it: its id, parent and hashes. A goal carries its spawn-policy hash. */
export function workItemSubject(item: WorkItem): ApprovalSubject {
  return {
    kind: 'plan',
    id: item.id,
    hash: planHash(item),
    parent: item.parent,
    spawnPolicyHash: item.type === 'goal' ? spawnPolicyHash(item) : null,
  };
}

/**
 * Whether `text` is `template` with every `$failed_checks` replaced by one and the same string.
 * Linear: the substitution's length follows from the lengths, so no search or regex is needed.
 */
export function isTemplateInstance(template: string, text: string): boolean {
  const parts = template.split(FAILED_CHECKS_PLACEHOLDER);
  const slots = parts.length - 1;
  if (slots === 0) return text === template;
  const rest = text.length - parts.reduce((sum, part) => sum + part.length, 0);
  if (rest < 0 || rest % slots !== 0) return false;
  const start = parts[0]!.length;
  return parts.join(text.slice(start, start + rest / slots)) === text;
}

/**
 * The spawn-policy hash a goal-spawned task conforms to, or null when it conforms to none. The
 * task must be a `task` whose body is the goal's `failure_context` template with `$failed_checks`
 * filled in, carrying the goal's skills, gates, verify checks and the escalation entries the goal's
 * policy names. Then its hash equals the goal's `spawnPolicyHash`; any widening (another skill,
 * a dropped gate or check, a changed escalation) yields a different hash and is refused.
 */
export function spawnedTaskPolicyHash(goal: WorkItem, task: WorkItem): string | null {
  if (task.type !== 'task') return null;
  const template = goal.failure_context ?? '';
  if (!isTemplateInstance(template, task.body)) return null;
  return spawnPolicyHash({
    failure_context: template,
    skills: task.skills,
    gates: task.gates,
    verify: task.verify,
    escalation: task.escalation,
    on_failure: goal.on_failure,
  });
}

/** A spawned task as the engine sees it under its goal's standing approval. */
export function spawnedTaskSubject(goal: WorkItem, task: WorkItem): ApprovalSubject {
  return { kind: 'plan', id: task.id, hash: planHash(task), parent: task.parent, spawnPolicyHash: spawnedTaskPolicyHash(goal, task) };
}
