import { describe, expect, it } from 'vitest';
import { planCard, toolCallCard, toolChangeCard } from '../testing/review-fixtures.js';
import { createCockpitStore } from './cockpit-store.js';

const ids = (cards: readonly { id: string }[]) => cards.map((card) => card.id);

describe('cockpit store: review', () => {
  it('starts empty and idle, with notifications unsupported', () => {
    expect(createCockpitStore().getState().review).toEqual({ cards: [], seq: 0, paused: false, status: 'idle', error: null, deciding: null, decideError: null, notifications: 'unsupported' });
  });

  it('replaces the queue, oldest first across kinds, with the paused flag', () => {
    const store = createCockpitStore();
    store.getState().reviewLoading();
    expect(store.getState().review.status).toBe('loading');
    store.getState().reviewReplaced({ cards: [toolCallCard(2), planCard(1), toolChangeCard(3)], paused: false });
    expect(ids(store.getState().review.cards)).toEqual(['plan-1', 'tool_call-2', 'tool_change-3']);
    expect(store.getState().review.status).toBe('ready');
    store.getState().reviewReplaced({ cards: [toolCallCard(4)], paused: true });
    expect(ids(store.getState().review.cards)).toEqual(['tool_call-4']);
    expect(store.getState().review.paused).toBe(true);
    store.getState().reviewReplaced({ cards: [], paused: false });
    expect(store.getState().review).toMatchObject({ cards: [], paused: false });
  });

  it('keeps the loaded queue when a reload fails', () => {
    const store = createCockpitStore();
    store.getState().reviewReplaced({ cards: [toolCallCard(1)], paused: false });
    store.getState().reviewLoading();
    expect(store.getState().review.status).toBe('ready');
    store.getState().reviewFailed('gone');
    expect(store.getState().review).toMatchObject({ status: 'ready', error: 'gone' });
    expect(store.getState().review.cards).toHaveLength(1);
    store.getState().reviewLoading();
    expect(store.getState().review.error).toBeNull();
  });

  it('records a failed first load', () => {
    const store = createCockpitStore();
    store.getState().reviewLoading();
    store.getState().reviewFailed('no handler');
    expect(store.getState().review).toMatchObject({ status: 'error', error: 'no handler' });
  });

  it('removes a decided card at once, whatever its kind, and clears the in-flight marker', () => {
    const store = createCockpitStore();
    store.getState().reviewReplaced({ cards: [planCard(1), toolCallCard(2), toolChangeCard(3)], paused: false });
    store.getState().decisionSending('plan-1');
    expect(store.getState().review.deciding).toBe('plan-1');
    store.getState().decisionSent('plan-1');
    expect(store.getState().review.deciding).toBeNull();
    expect(ids(store.getState().review.cards)).toEqual(['tool_call-2', 'tool_change-3']);
    store.getState().decisionSending('tool_change-3');
    store.getState().decisionSent('tool_change-3');
    expect(ids(store.getState().review.cards)).toEqual(['tool_call-2']);
  });

  it('keeps a failed decision with its card until the card leaves the queue', () => {
    const store = createCockpitStore();
    store.getState().reviewReplaced({ cards: [toolCallCard(1), planCard(2)], paused: false });
    store.getState().decisionSending('tool_call-1');
    store.getState().decisionFailed('tool_call-1', 'database is locked (E_DB_FAILURE)');
    expect(store.getState().review).toMatchObject({ deciding: null, decideError: { id: 'tool_call-1', message: 'database is locked (E_DB_FAILURE)' } });
    expect(ids(store.getState().review.cards)).toEqual(['tool_call-1', 'plan-2']);
    store.getState().reviewReplaced({ cards: [toolCallCard(1), planCard(2)], paused: false });
    expect(store.getState().review.decideError).not.toBeNull();
    // A new attempt clears the old failure.
    store.getState().decisionSending('tool_call-1');
    expect(store.getState().review.decideError).toBeNull();
    store.getState().decisionFailed('tool_call-1', 'again');
    store.getState().reviewReplaced({ cards: [planCard(2)], paused: false });
    expect(store.getState().review.decideError).toBeNull();
  });

  it('settles only the decision it is about', () => {
    const store = createCockpitStore();
    store.getState().reviewReplaced({ cards: [toolCallCard(1), planCard(2)], paused: false });
    store.getState().decisionSending('plan-2');
    store.getState().decisionSent('tool_call-1');
    expect(store.getState().review.deciding).toBe('plan-2');
    store.getState().decisionFailed('tool_call-1', 'late');
    expect(store.getState().review.deciding).toBe('plan-2');
  });

  it('tracks the notification permission', () => {
    const store = createCockpitStore();
    store.getState().setNotificationState('default');
    const before = store.getState().review;
    store.getState().setNotificationState('default');
    expect(store.getState().review).toBe(before);
    store.getState().setNotificationState('granted');
    expect(store.getState().review.notifications).toBe('granted');
  });
});
