import { describe, expect, it } from 'vitest';
import { pendingApproval } from '../test/approval-fixtures.js';
import { pendingPlan } from '../test/plan-fixtures.js';
import { createCockpitStore } from './cockpit-store.js';
import { reviewQueue, shortPlanHash } from './plans-slice.js';

const ids = (cards: readonly { id: string }[]) => cards.map((card) => card.id);

describe('cockpit store: plan approvals', () => {
  it('starts empty and idle', () => {
    expect(createCockpitStore().getState().plans).toEqual({ pending: [], status: 'idle', error: null, deciding: null, decideError: null });
  });

  it('replaces the queue, oldest first, by id on a tie', () => {
    const store = createCockpitStore();
    store.getState().plansLoading();
    expect(store.getState().plans.status).toBe('loading');
    store.getState().plansReplaced([pendingPlan(2), pendingPlan(1)]);
    expect(ids(store.getState().plans.pending)).toEqual(['plan-1', 'plan-2']);
    expect(store.getState().plans.status).toBe('ready');
    store.getState().plansReplaced([pendingPlan(3)]);
    expect(ids(store.getState().plans.pending)).toEqual(['plan-3']);
    store.getState().plansReplaced([pendingPlan(3), pendingPlan(2, { requestedAt: pendingPlan(1).requestedAt }), pendingPlan(1)]);
    expect(ids(store.getState().plans.pending)).toEqual(['plan-1', 'plan-2', 'plan-3']);
  });

  it('keeps the loaded queue when a reload fails, and records a failed first load', () => {
    const store = createCockpitStore();
    store.getState().plansReplaced([pendingPlan(1)]);
    store.getState().plansLoading();
    store.getState().plansFailed('gone');
    expect(store.getState().plans).toMatchObject({ status: 'ready', error: 'gone' });
    expect(store.getState().plans.pending).toHaveLength(1);

    const fresh = createCockpitStore();
    fresh.getState().plansLoading();
    fresh.getState().plansFailed('no handler');
    expect(fresh.getState().plans).toMatchObject({ status: 'error', error: 'no handler' });
  });

  it('removes a decided plan at once and clears the in-flight marker', () => {
    const store = createCockpitStore();
    store.getState().plansReplaced([pendingPlan(1), pendingPlan(2)]);
    store.getState().planDeciding('plan-1');
    expect(store.getState().plans.deciding).toBe('plan-1');
    store.getState().planDecided('plan-1');
    expect(store.getState().plans.deciding).toBeNull();
    expect(ids(store.getState().plans.pending)).toEqual(['plan-2']);
  });

  it('keeps a failed decision with its card until the card leaves the queue', () => {
    const store = createCockpitStore();
    store.getState().plansReplaced([pendingPlan(1), pendingPlan(2)]);
    store.getState().planDeciding('plan-1');
    store.getState().planDecideFailed('plan-1', 'owner key locked (E_DB_FAILURE)');
    expect(store.getState().plans).toMatchObject({ deciding: null, decideError: { id: 'plan-1', message: 'owner key locked (E_DB_FAILURE)' } });
    store.getState().plansReplaced([pendingPlan(1), pendingPlan(2)]);
    expect(store.getState().plans.decideError).not.toBeNull();
    store.getState().planDeciding('plan-1');
    expect(store.getState().plans.decideError).toBeNull();
    store.getState().planDecideFailed('plan-1', 'again');
    store.getState().plansReplaced([pendingPlan(2)]);
    expect(store.getState().plans.decideError).toBeNull();
  });

  it('leaves the tool-call approvals alone', () => {
    const store = createCockpitStore();
    store.getState().approvalsReplaced({ pending: [pendingApproval(1)], paused: false });
    store.getState().plansReplaced([pendingPlan(1)]);
    store.getState().planDecided('plan-1');
    expect(ids(store.getState().approvals.pending)).toEqual(['approval-1']);
  });
});

describe('plan queue helpers', () => {
  it('shows the first 8 characters of the plan hash', () => {
    expect(shortPlanHash(pendingPlan(1).planHash)).toBe('1a2b3c4d');
  });


  it('merges tool calls and plans into one queue by request time, the plan first on a tie', () => {
    const queue = reviewQueue([pendingApproval(2), pendingApproval(1), pendingApproval(4)], [pendingPlan(3), pendingPlan(1)]);
    expect(queue.map((entry) => `${entry.kind}:${entry.card.id}`)).toEqual(['plan:plan-1', 'tool:approval-1', 'tool:approval-2', 'plan:plan-3', 'tool:approval-4']);
    expect(reviewQueue([], [])).toEqual([]);
  });
});
