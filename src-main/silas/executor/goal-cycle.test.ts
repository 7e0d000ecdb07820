import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import { useTempDirs } from '../../testing/temp.js';
import { spawnedTaskPolicyHash } from '../work/plan-subjects.js';
import { planHash, spawnPolicyHash } from '../work/hashes.js';
import { parsePlan } from '../work/plan-parser.js';
import type { ExecutorDeps } from './deps.js';
import { buildFixTask } from './goal-cycle.js';
import { executorFixture, sh, type ExecutorFixture } from './testing/executor.js';

const tempDir = useTempDirs('silas-goal-');
const WEEK = 7 * 24 * 60 * 60_000;

function goalPlan(extra = '', title = 'Health monitor'): WorkItem {
  return parsePlan(`---
id: goal-health
type: goal
title: ${title}
schedule: "*/30 * * * *"
verify:
  - name: status_ok
    run: cat status.txt
    expect: { equals: "ok" }
on_failure: spawn_task
failure_context: |
  The health check failed.

  Failed checks:
  $failed_checks

  Restore status.txt.
${extra}---
Watch the service.
`);
}

function setup(overrides: Partial<ExecutorDeps> = {}) {
  let n = 0;
  const f = executorFixture(tempDir(), { newId: () => String(++n), ...overrides });
  f.script([sh('printf ok > status.txt')]);
  return f;
}

/** Signs a standing approval for the goal and stores it with the goal (not consumed). */
function standing(f: ExecutorFixture, goal: WorkItem, maxExecutions = 2): { goal: WorkItem; token: ApprovalToken } {
  const token = f.engine.issueToken(goal, { verdict: 'approved' }, { scope: 'standing', maxExecutions, ttlMs: WEEK });
  const authorized = f.executor.authorize(goal, token);
  if (!authorized.ok) throw new Error(authorized.reason);
  return { goal: authorized.item, token };
}

const consumed = (f: ExecutorFixture, token: ApprovalToken) => f.count('silas_approval_consumptions', 'token_id = ?', token.token_id);
const breakService = (f: ExecutorFixture) => rmSync(join(f.workDir, 'status.txt'), { force: true });

describe('WorkItemExecutor: goal cycles (§5.2.3)', () => {
  it('is healthy when the checks pass, and spawns nothing', async () => {
    const f = setup();
    writeFileSync(join(f.workDir, 'status.txt'), 'ok');
    const { goal } = standing(f, goalPlan());
    expect(await f.executor.execute(goal)).toMatchObject({ status: 'healthy', last_error: null });
    expect(f.events('silas.executor.goal_task_spawned')).toHaveLength(0);
    expect(f.store.get('goal-health')!.status).toBe('healthy');
  });

  it('spawns and authorises exactly one fix task per execution of the standing approval; a second use is refused', async () => {
    const f = setup();
    const { goal, token } = standing(f, goalPlan(), 2);
    expect(consumed(f, token)).toBe(0);

    const first = await f.executor.execute(goal);
    expect(first).toMatchObject({ status: 'healthy', summary: expect.stringContaining('fix task goal-health-fix-1 done') });
    expect(consumed(f, token)).toBe(1);
    const task = f.store.get('goal-health-fix-1')!;
    expect(task).toMatchObject({ type: 'task', parent: 'goal-health', spawned_by: 'goal-health', status: 'done', approval_token: { token_id: token.token_id } });
    expect(task.body).toContain('Failed checks:\n- status_ok:');
    expect(spawnedTaskPolicyHash(goal, task)).toBe(spawnPolicyHash(goal));
    expect(f.events('silas.executor.goal_task_spawned')).toEqual([expect.objectContaining({ task_id: 'goal-health-fix-1', spawned_task_hash: planHash(task), conforms: true })]);

    // The same execution cannot authorise its task twice, nor run it twice.
    expect(f.engine.verify(token, goal, { spawned: task })).toMatchObject({ ok: false, code: 'E_APPROVAL_REPLAY' });
    expect(await f.executor.execute(task)).toMatchObject({ status: 'blocked' });
    expect(consumed(f, token)).toBe(1);

    breakService(f);
    expect(await f.executor.execute(goal)).toMatchObject({ status: 'healthy' });
    expect(consumed(f, token)).toBe(2);
    expect(f.store.listByParent('goal-health').map((t) => t.id)).toEqual(['goal-health-fix-1', 'goal-health-fix-3']);
  });

  it('falls back to an interactive approval once the standing approval is spent', async () => {
    const asked: string[] = [];
    const f: ExecutorFixture = setup({
      planApprover: {
        request: async (request) => {
          asked.push(request.item.id);
          return { outcome: 'approve', token: f.engine.issueToken(request.item, { verdict: 'approved' }) };
        },
      },
    });
    const { goal, token } = standing(f, goalPlan(), 1);
    expect(await f.executor.execute(goal)).toMatchObject({ status: 'healthy' });
    expect(asked).toEqual([]);
    breakService(f);
    expect(await f.executor.execute(goal)).toMatchObject({ status: 'healthy' });
    expect(asked).toHaveLength(1);
    expect(consumed(f, token)).toBe(1);
    expect(f.events('silas.approval.refused')).toEqual([expect.objectContaining({ code: 'E_APPROVAL_EXHAUSTED' })]);
    expect(f.events('silas.executor.interactive_approval')).toEqual([expect.objectContaining({ outcome: 'approved' })]);
  });

  it('blocks the fix task and fails the cycle when no approval can be had', async () => {
    const f = setup({ planApprover: { request: async () => ({ outcome: 'unreachable', reason: 'the control center is not running' }) } });
    const { goal } = standing(f, goalPlan(), 1);
    await f.executor.execute(goal);
    breakService(f);
    const result = await f.executor.execute(goal);
    expect(result).toMatchObject({ status: 'failed', last_error: expect.stringContaining('blocked: approval of goal-health-fix-3 unreachable: the control center is not running') });
    expect(f.store.get('goal-health-fix-3')).toMatchObject({ status: 'blocked', approval_token: null });
    expect(f.events('silas.executor.tool_call')).toHaveLength(1);
  });

  it('refuses a cycle of a goal edited after its standing approval', async () => {
    const f = setup();
    const { token } = standing(f, goalPlan());
    const edited = { ...goalPlan('', 'Health monitor (edited)'), approval_token: token };
    expect(await f.executor.execute(edited)).toMatchObject({ status: 'blocked', last_error: expect.stringContaining('E_APPROVAL_PLAN_HASH') });
    expect(f.events('silas.executor.goal_checks')).toHaveLength(0);
    // A token whose goal spawn policy differs is refused too (here: another failure_context).
    const other = goalPlan().failure_context + 'Also delete the logs.\n';
    const widened = { ...goalPlan(), failure_context: other, approval_token: token };
    expect(await f.executor.execute(widened)).toMatchObject({ status: 'blocked' });
    expect(f.events('silas.executor.goal_approval_checked').map((e) => e.ok)).toEqual([true, false, false]);
  });

  it('reports failure without spawning when on_failure is not spawn_task', async () => {
    const f = setup();
    const plain = parsePlan(`---
id: goal-report
type: goal
title: Report only
schedule: "0 * * * *"
verify:
  - { name: status_ok, run: cat status.txt, expect: { equals: ok } }
---
Watch.
`);
    const token = f.engine.issueToken(plain, { verdict: 'approved' });
    const authorized = f.executor.authorize(plain, token);
    expect(authorized.ok).toBe(true);
    const result = await f.executor.execute((authorized as { item: WorkItem }).item);
    expect(result).toMatchObject({ status: 'failed', last_error: expect.stringContaining('on_failure is report'), verification_results: [expect.objectContaining({ passed: false })] });
    expect(f.events('silas.executor.goal_task_spawned')).toHaveLength(0);
  });

  it('builds a fix task that conforms to the spawn policy, with every placeholder filled alike', () => {
    const goal = goalPlan();
    const twice = { ...goal, failure_context: 'Before: $failed_checks\nAfter: $failed_checks\n' };
    const report = { all_passed: false, timestamp: new Date().toISOString(), results: [], failed: [{ name: 'a', passed: false, reason: 'Expected "ok"', output: 'down\n', exit_code: 0 }] };
    const task = buildFixTask(twice, report, 'goal-health-fix-x', new Date());
    expect(task.body).toBe('Before: - a: Expected "ok"\n  output: down\nAfter: - a: Expected "ok"\n  output: down\n');
    expect(spawnedTaskPolicyHash(twice, task)).toBe(spawnPolicyHash(twice));
    expect(spawnedTaskPolicyHash(twice, { ...task, skills: ['extra-skill'] })).not.toBe(spawnPolicyHash(twice));
  });
});
