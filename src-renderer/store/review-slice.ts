import type { StateCreator } from 'zustand';
import type { DecisionCard, ReviewQueueView } from '../../src-shared/schemas/review.js';
import type { CockpitState } from './cockpit-store.js';
import { sortOldestFirst } from './review-queue.js';

/** Browser notification permission, or 'unsupported' (no Notification API, or the desktop shell notifies natively). */
export type NotificationState = NotificationPermission | 'unsupported';

/** The Review queue: every decision waiting for the person, whatever its kind (spec 002 §0.5.1). */
export interface ReviewState {
  /** Oldest first; the first card is the active one. */
  cards: readonly DecisionCard[];
  /** Asking is paused: new requests of every kind are declined. */
  paused: boolean;
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** Why the queue could not be loaded. */
  error: string | null;
  /** The card whose decision is on its way; every decision button (Review and Servers) waits for it. */
  deciding: string | null;
  /** The last failed decision, with the runtime's message. */
  decideError: { id: string; message: string } | null;
  notifications: NotificationState;
}

export interface ReviewSlice {
  review: ReviewState;
  reviewLoading(): void;
  /** A full queue from `review.list` or a `review.changed` event: it replaces what is held. */
  reviewReplaced(queue: ReviewQueueView): void;
  reviewFailed(message: string): void;
  decisionSending(id: string): void;
  decisionSent(id: string): void;
  decisionFailed(id: string, message: string): void;
  setNotificationState(state: NotificationState): void;
}

const initialReview: ReviewState = { cards: [], paused: false, status: 'idle', error: null, deciding: null, decideError: null, notifications: 'unsupported' };

export const createReviewSlice: StateCreator<CockpitState, [], [], ReviewSlice> = (set) => {
  const update = (fn: (r: ReviewState) => ReviewState) => set((s) => ({ review: fn(s.review) }));
  const settled = (r: ReviewState, id: string) => (r.deciding === id ? null : r.deciding);
  return {
    review: initialReview,
    reviewLoading: () => update((r) => ({ ...r, status: r.status === 'ready' ? 'ready' : 'loading', error: null })),
    reviewReplaced: ({ cards, paused }) =>
      update((r) => {
        const next = sortOldestFirst(cards);
        // A failed decision stays visible only while its card is still waiting.
        const decideError = r.decideError && next.some((card) => card.id === r.decideError!.id) ? r.decideError : null;
        return { ...r, cards: next, paused, status: 'ready', error: null, decideError };
      }),
    reviewFailed: (message) => update((r) => ({ ...r, status: r.status === 'ready' ? 'ready' : 'error', error: message })),
    decisionSending: (id) => update((r) => ({ ...r, deciding: id, decideError: null })),
    // The runtime has settled the card, so it leaves the queue now even if its event is still on the way.
    decisionSent: (id) => update((r) => ({ ...r, deciding: settled(r, id), cards: r.cards.filter((card) => card.id !== id) })),
    decisionFailed: (id, message) => update((r) => ({ ...r, deciding: settled(r, id), decideError: { id, message } })),
    setNotificationState: (notifications) => update((r) => (r.notifications === notifications ? r : { ...r, notifications })),
  };
};
