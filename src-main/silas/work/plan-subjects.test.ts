import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WorkItem } from '../../../src-shared/silas/work.js';
import { useTempDirs } from '../../testing/temp.js';
import { planHash, spawnPolicyHash } from './hashes.js';
import { parsePlan } from './plan-parser.js';
import { isTemplateInstance, spawnedTaskPolicyHash, workItemSubject } from './plan-subjects.js';
import { engineFixture } from '../../approval/testing/engine.js';

const tempDir = useTempDirs();
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const APPROVED = { verdict: 'approved' };

const goal = parsePlan(fixture('spec-13-4-health-monitor.md'));

/** A fix task spawned as §5.2.3 describes: the template filled in, the goal's policy carried over. */
function fixTask(n: number, overrides: Partial<WorkItem> = {}): WorkItem {
  return WorkItem.parse({
    id: `${goal.id}-fix-${n}`,
    type: 'task',
    title: `Fix ${goal.title}`,
    parent: goal.id,
    spawned_by: goal.id,
    body: goal.failure_context!.replace('$failed_checks', `- bot_process_alive: exit code 1 (cycle ${n})`),
    skills: goal.skills,
    gates: goal.gates,
    verify: goal.verify,
    escalation: goal.escalation,
    ...overrides,
  });
}

describe('isTemplateInstance', () => {
  it.each([
    ['Failed: $failed_checks.', 'Failed: a, b.', true],
    ['Failed: $failed_checks.', 'Failed: .', true],
    ['$failed_checks / $failed_checks', 'x / x', true],
    ['$failed_checks / $failed_checks', 'x / y', false],
    ['Failed: $failed_checks.', 'Failed: a, b!', false],
    ['Failed: $failed_checks.', 'Passed: a.', false],
    ['no placeholder', 'no placeholder', true],
    ['no placeholder', 'no placeholder, and more', false],
    ['', '', true],
  ])('template %j, text %j → %s', (template, text, expected) => {
    expect(isTemplateInstance(template, text)).toBe(expected);
  });
});

describe('WorkItem subjects', () => {
  it('a goal carries its spawn-policy hash; a conforming fix task reproduces it', () => {
    expect(workItemSubject(goal)).toEqual({ kind: 'plan', id: goal.id, hash: planHash(goal), parent: null, spawnPolicyHash: spawnPolicyHash(goal) });
    expect(spawnedTaskPolicyHash(goal, fixTask(1))).toBe(spawnPolicyHash(goal));
  });

  it.each<[string, Partial<WorkItem>]>([
    ['an extra skill', { skills: ['shell-admin'] }],
    ['a dropped verify check', { verify: goal.verify.slice(1) }],
    ['a body that is not the failure_context template', { body: 'Delete the logs and report success.' }],
    ['a project instead of a task', { type: 'project' }],
  ])('a spawned task with %s does not conform', (_label, change) => {
    expect(spawnedTaskPolicyHash(goal, { ...fixTask(1), ...change })).not.toBe(spawnPolicyHash(goal));
  });
});

describe('engine over WorkItems', () => {
  it('full plan: issue, verify and check on the §13.1 plan; runtime fields do not disturb the binding; an edit does', () => {
    const f = engineFixture(tempDir());
    const plan = parsePlan(fixture('spec-13-1-fix-bug.md'));
    const token = f.plans.issueToken(plan, APPROVED);
    expect(token.plan_hash).toBe(planHash(plan));
    const verified = f.plans.verify(token, plan);
    if (!verified.ok) throw new Error(verified.reason);
    const running = WorkItem.parse({ ...plan, approval_token: verified.token, status: 'running', attempts: 2 });
    expect(f.plans.check(running.approval_token, running)).toEqual({ ok: true, reason: 'Valid' });
    const edited = { ...running, body: `${running.body}\nAlso push to main.` };
    expect(f.plans.check(running.approval_token, edited)).toMatchObject({ ok: false, code: 'E_APPROVAL_PLAN_HASH' });
  });

  it('standing: the §13.4 goal authorises conforming fix tasks one by one and refuses a widened one', () => {
    const f = engineFixture(tempDir());
    const token = f.plans.issueToken(goal, APPROVED, { scope: 'standing', maxExecutions: 10, ttlMs: 7 * 24 * 3_600_000 });
    expect(token.conditions.spawn_policy_hash).toBe(spawnPolicyHash(goal));

    expect(f.plans.verify(token, goal, { spawned: fixTask(1) })).toMatchObject({ ok: true, executionIndex: 1 });
    expect(f.plans.check(token, fixTask(1))).toMatchObject({ ok: true });
    expect(f.plans.check(token, fixTask(1), { goal })).toMatchObject({ ok: true });
    expect(f.plans.verify(token, goal, { spawned: fixTask(2, { skills: ['shell-admin'] }) })).toMatchObject({ ok: false, code: 'E_APPROVAL_SPAWN_POLICY' });
    expect(f.plans.verify(token, goal, { spawned: fixTask(2, { parent: 'goal-other' }) })).toMatchObject({ ok: false, code: 'E_APPROVAL_SPAWN_PARENT' });
    const editedGoal = { ...goal, verify: goal.verify.slice(1) };
    expect(f.plans.verify(token, editedGoal, { spawned: fixTask(2) })).toMatchObject({ ok: false, code: 'E_APPROVAL_PLAN_HASH' });
    expect(f.plans.verify(token, goal, { spawned: fixTask(2) })).toMatchObject({ ok: true, executionIndex: 2 });
  });
});
