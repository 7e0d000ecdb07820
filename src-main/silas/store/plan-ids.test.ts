import { describe, expect, it } from 'vitest';
import { emptyBudgetUsed, type WorkItem } from '../../../src-shared/silas/work.js';
import { useTempDirs } from '../../testing/temp.js';
import { executorFixture, taskPlan } from '../executor/testing/executor.js';
import { planIdConflict, planIdRefusal, reidentifyPlan, type PlanIdLookup } from './plan-ids.js';

// The one check every path asks before a plan's card is offered (docs/silas/store-and-cli.md "Plan ids").
const tempDir = useTempDirs('silas-plan-ids-');

function lookup(stored: Record<string, Pick<WorkItem, 'status' | 'type'>>, inFlight: string[] = []): PlanIdLookup {
  return { stored: (id) => stored[id] ?? null, inFlight: (id) => inFlight.includes(id) };
}

describe('plan ids', () => {
  const plan = taskPlan('task-greeting');

  it('a free id, or one whose item may run again (failed, stuck), is no conflict', () => {
    expect(planIdConflict(plan, lookup({}))).toBeNull();
    expect(planIdConflict(plan, lookup({ 'task-greeting': { status: 'failed', type: 'task' } }))).toBeNull();
  });

  it('an item that ran to done, one of another type, one in flight or one that cannot be read is a conflict, said in words with the fix', () => {
    const done = planIdConflict(plan, lookup({ 'task-greeting': { status: 'done', type: 'task' } }));
    expect(planIdRefusal(done!)).toBe('task-greeting already ran to done in this home, and a finished work item never runs again; give the plan a new id and ask again');
    expect(planIdConflict(plan, lookup({ 'task-greeting': { status: 'running', type: 'goal' } }))?.reason).toBe('task-greeting is already a goal in this home, and a plan cannot turn it into a task');
    expect(planIdConflict(plan, lookup({}, ['task-greeting']))?.reason).toBe('a plan with id task-greeting is already waiting for approval or running');
    const unreadable: PlanIdLookup = {
      stored: () => {
        throw new Error('work item task-greeting in the store is invalid');
      },
    };
    expect(planIdConflict(plan, unreadable)?.reason).toMatch(/^the work item task-greeting stored in this home cannot be read \(work item task-greeting in the store is invalid\)$/);
  });

  it('re-identifies to the first id never used and not in flight; a free id is kept', () => {
    expect(reidentifyPlan(plan, lookup({}))).toEqual({ item: plan, renamed: null });
    const taken = lookup({ 'task-greeting': { status: 'done', type: 'task' }, 'task-greeting-2': { status: 'failed', type: 'task' } }, ['task-greeting-3']);
    const fresh = reidentifyPlan(plan, taken);
    expect(fresh.item).toEqual({ ...plan, id: 'task-greeting-4' });
    expect(fresh.renamed).toEqual({ from: 'task-greeting', to: 'task-greeting-4', reason: 'task-greeting already ran to done in this home, and a finished work item never runs again' });
  });

  it('keeps a long id within the id limit', () => {
    const long = taskPlan(`t${'x'.repeat(199)}`);
    const fresh = reidentifyPlan(long, lookup({ [long.id]: { status: 'done', type: 'task' } }));
    expect(fresh.item.id).toBe(`t${'x'.repeat(179)}-2`);
  });

  it('the executor refuses a done id before it consumes the token, so the approval is not spent on nothing', () => {
    const fixture = executorFixture(tempDir());
    fixture.store.save(plan);
    fixture.store.updateStatus(plan.id, 'running', emptyBudgetUsed());
    fixture.store.updateStatus(plan.id, 'done', emptyBudgetUsed());
    const token = fixture.issue(plan);
    expect(fixture.executor.authorize(plan, token)).toEqual({
      ok: false,
      code: 'E_PLAN_ID_TAKEN',
      reason: 'task-greeting already ran to done in this home, and a finished work item never runs again; give the plan a new id and ask again',
    });
    expect(fixture.eventNames('silas.approval')).not.toContain('silas.approval.consumed');
  });
});
