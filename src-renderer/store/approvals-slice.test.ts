import { describe, expect, it } from 'vitest';
import { pendingApproval } from '../test/approval-fixtures.js';
import { createCockpitStore } from './cockpit-store.js';

const ids = (cards: readonly { id: string }[]) => cards.map((card) => card.id);

describe('cockpit store: approvals', () => {
  it('starts empty and idle, with notifications unsupported', () => {
    expect(createCockpitStore().getState().approvals).toMatchObject({ pending: [], paused: false, status: 'idle', deciding: null, notifications: 'unsupported' });
  });

  it('replaces the queue, oldest first, with the paused flag', () => {
    const store = createCockpitStore();
    store.getState().approvalsLoading();
    expect(store.getState().approvals.status).toBe('loading');
    store.getState().approvalsReplaced({ pending: [pendingApproval(2), pendingApproval(1)], paused: false });
    expect(ids(store.getState().approvals.pending)).toEqual(['approval-1', 'approval-2']);
    expect(store.getState().approvals.status).toBe('ready');
    store.getState().approvalsReplaced({ pending: [pendingApproval(3)], paused: true });
    expect(ids(store.getState().approvals.pending)).toEqual(['approval-3']);
    expect(store.getState().approvals.paused).toBe(true);
  });

  it('keeps the loaded queue when a reload fails', () => {
    const store = createCockpitStore();
    store.getState().approvalsReplaced({ pending: [pendingApproval(1)], paused: false });
    store.getState().approvalsLoading();
    store.getState().approvalsFailed('gone');
    expect(store.getState().approvals).toMatchObject({ status: 'ready', error: 'gone' });
    expect(store.getState().approvals.pending).toHaveLength(1);
  });

  it('records a failed first load', () => {
    const store = createCockpitStore();
    store.getState().approvalsLoading();
    store.getState().approvalsFailed('no handler');
    expect(store.getState().approvals).toMatchObject({ status: 'error', error: 'no handler' });
  });

  it('removes a decided card at once and clears the in-flight marker', () => {
    const store = createCockpitStore();
    store.getState().approvalsReplaced({ pending: [pendingApproval(1), pendingApproval(2)], paused: false });
    store.getState().approvalDeciding('approval-1');
    expect(store.getState().approvals.deciding).toBe('approval-1');
    store.getState().approvalDecided('approval-1');
    expect(store.getState().approvals.deciding).toBeNull();
    expect(ids(store.getState().approvals.pending)).toEqual(['approval-2']);
  });

  it('keeps a failed decision with its card until the card leaves the queue', () => {
    const store = createCockpitStore();
    store.getState().approvalsReplaced({ pending: [pendingApproval(1), pendingApproval(2)], paused: false });
    store.getState().approvalDeciding('approval-1');
    store.getState().approvalDecideFailed('approval-1', 'database is locked (E_DB_FAILURE)');
    expect(store.getState().approvals).toMatchObject({ deciding: null, decideError: { id: 'approval-1', message: 'database is locked (E_DB_FAILURE)' } });
    store.getState().approvalsReplaced({ pending: [pendingApproval(1), pendingApproval(2)], paused: false });
    expect(store.getState().approvals.decideError).not.toBeNull();
    store.getState().approvalsReplaced({ pending: [pendingApproval(2)], paused: false });
    expect(store.getState().approvals.decideError).toBeNull();
  });

  it('tracks the notification permission', () => {
    const store = createCockpitStore();
    store.getState().setNotificationState('default');
    const before = store.getState().approvals;
    store.getState().setNotificationState('default');
    expect(store.getState().approvals).toBe(before);
    store.getState().setNotificationState('granted');
    expect(store.getState().approvals.notifications).toBe('granted');
  });
});
