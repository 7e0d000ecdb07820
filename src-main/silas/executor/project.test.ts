import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import { useTempDirs } from '../../testing/temp.js';
import { parsePlan } from '../work/plan-parser.js';
import { ScriptedExecutorAgent } from './scripted-agent.js';
import { executorFixture, sh, taskPlan, type ExecutorFixture } from './testing/executor.js';

const tempDir = useTempDirs('silas-project-');

function project(tasks: string[], extra = ''): WorkItem {
  return parsePlan(`---\nid: project-p\ntype: project\ntitle: Project P\ntasks: [${tasks.join(', ')}]\n${extra}---\nRun the tasks.\n`);
}

/** A child task of project-p that appends its id to order.txt; `fail` makes its check fail. */
function child(id: string, dependsOn: string[] = [], fail = false): WorkItem {
  const check = `verify:\n  - name: recorded\n    run: grep -x ${fail ? 'never' : id} order.txt\n    expect: { exit_code: 0 }\n`;
  return taskPlan(id, `parent: project-p\ndepends_on: [${dependsOn.join(', ')}]\nbudget: { max_attempts: 1 }\n${check}`);
}

/** Each task appends its own id, so order.txt is the execution order. */
function recordingAgent(f: ExecutorFixture): void {
  f.agent = { run: (context) => new ScriptedExecutorAgent([sh(`echo ${context.item.id} >> order.txt`)]).run(context) };
}

const order = (f: ExecutorFixture) => (existsSync(join(f.workDir, 'order.txt')) ? readFileSync(join(f.workDir, 'order.txt'), 'utf8').trim().split('\n') : []);

describe('WorkItemExecutor: projects (§5.2.2)', () => {
  it('runs the tasks in dependency order, each under its own approval, then the project checks', async () => {
    const f = executorFixture(tempDir());
    recordingAgent(f);
    for (const task of [child('task-c', ['task-b']), child('task-a'), child('task-b', ['task-a'])]) f.approve(task);
    const check = 'verify:\n  - name: all_three\n    run: wc -l < order.txt\n    expect: { equals: "3" }\n';
    const result = await f.executor.execute(f.approve(project(['task-c', 'task-a', 'task-b'], check)));
    expect(result).toMatchObject({ status: 'done', verification_results: [expect.objectContaining({ name: 'all_three', passed: true })] });
    expect(order(f)).toEqual(['task-a', 'task-b', 'task-c']);
    expect(result.budget_used).toMatchObject({ attempts: 3, executor_runs: 3 });
    expect(f.events('silas.executor.project_order')).toEqual([expect.objectContaining({ order: ['task-a', 'task-b', 'task-c'] })]);
    for (const id of ['task-a', 'task-b', 'task-c', 'project-p']) expect(f.store.get(id)!.status).toBe('done');
  });

  it('stops at a failed task and blocks the tasks that depend on it', async () => {
    const f = executorFixture(tempDir());
    recordingAgent(f);
    for (const task of [child('task-a', [], true), child('task-b', ['task-a']), child('task-c', ['task-b'])]) f.approve(task);
    const result = await f.executor.execute(f.approve(project(['task-a', 'task-b', 'task-c'])));
    expect(result).toMatchObject({ status: 'failed', last_error: expect.stringContaining('task task-a stuck') });
    expect(order(f)).toEqual(['task-a']);
    expect(f.store.get('task-b')!.status).toBe('blocked');
    expect(f.store.get('task-c')!.status).toBe('blocked');
    expect(f.store.get('project-p')!.status).toBe('failed');
  });

  it('refuses a dependency cycle before any task runs', async () => {
    const f = executorFixture(tempDir());
    recordingAgent(f);
    for (const task of [child('task-a', ['task-b']), child('task-b', ['task-a'])]) f.approve(task);
    const result = await f.executor.execute(f.approve(project(['task-a', 'task-b'])));
    expect(result).toMatchObject({ status: 'failed', last_error: 'tasks.task-a.depends_on: dependency cycle task-a -> task-b -> task-a; break it by removing one depends_on entry' });
    expect(order(f)).toEqual([]);
    expect(f.events('silas.executor.started').map((e) => e.work_item_id)).toEqual([]);
  });

  it('refuses a project whose tasks are missing or belong elsewhere', async () => {
    const f = executorFixture(tempDir());
    expect(await f.executor.execute(f.approve(project(['task-ghost'])))).toMatchObject({ status: 'failed', last_error: expect.stringContaining('tasks.0: task task-ghost is not in the work item store') });
    const g = executorFixture(tempDir());
    g.approve(taskPlan('task-stray'));
    expect(await g.executor.execute(g.approve(project(['task-stray'])))).toMatchObject({ status: 'failed', last_error: expect.stringContaining('has parent none, not project-p') });
  });

  it('waits for a dependency outside the project to be done', async () => {
    const f = executorFixture(tempDir());
    recordingAgent(f);
    f.store.save(taskPlan('task-setup'));
    f.approve(child('task-a', ['task-setup']));
    const result = await f.executor.execute(f.approve(project(['task-a'])));
    expect(result).toMatchObject({ status: 'blocked', last_error: 'task task-a waits for task-setup (pending)' });
    expect(order(f)).toEqual([]);
  });

  it('asks the person for a task without an approval, and blocks when they decline', async () => {
    const asked: string[] = [];
    const dir = tempDir();
    let answer: 'approve' | 'deny' = 'deny';
    const f = executorFixture(dir, {
      planApprover: {
        request: async (request) => {
          asked.push(request.item.id);
          return answer === 'approve' ? { outcome: 'approve', token: f.engine.issueToken(request.item, { verdict: 'approved' }) } : { outcome: 'deny', reason: 'not now' };
        },
      },
    });
    recordingAgent(f);
    f.store.save(child('task-a'));
    expect(await f.executor.execute(f.approve(project(['task-a'])))).toMatchObject({ status: 'blocked', last_error: 'approval of task-a denied: not now' });
    expect(order(f)).toEqual([]);

    answer = 'approve';
    const again = parsePlan(`---\nid: project-p\ntype: project\ntitle: Project P again\ntasks: [task-a]\n---\nRun it.\n`);
    expect(await f.executor.execute(f.approve(again))).toMatchObject({ status: 'done' });
    expect(asked).toEqual(['task-a', 'task-a']);
    expect(order(f)).toEqual(['task-a']);
  });
});
