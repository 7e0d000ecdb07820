import type { StateCreator } from 'zustand';
import { orderBySource } from '../../src-shared/review/sources.js';
import type { DecisionCard, ReviewQueueDelta, ReviewQueueView } from '../../src-shared/schemas/review.js';
import type { CockpitState } from './cockpit-store.js';
import { applyReviewDelta } from './review-deltas.js';

/** Browser notification permission, or 'unsupported' (no Notification API, or the desktop shell notifies natively). */
type NotificationState = NotificationPermission | 'unsupported';

/** The Review queue: every decision waiting for the person, whatever its kind (spec 002 §0.5.1). */
export interface ReviewState {
  /** In source order (src-shared/review/sources.ts): every source's first card first; the first card is the active one. */
  cards: readonly DecisionCard[];
  /** The last `review.changed` delta this copy includes (0 before the first list). */
  seq: number;
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
  /** A full queue from `review.list` (all its pages): it replaces what is held. */
  reviewReplaced(queue: Pick<ReviewQueueView, 'cards' | 'paused'> & { seq?: number }): void;
  /** One `review.changed` delta; false when one was missed (the caller lists again). */
  reviewDelta(delta: ReviewQueueDelta): boolean;
  reviewFailed(message: string): void;
  decisionSending(id: string): void;
  decisionSent(id: string): void;
  decisionFailed(id: string, message: string): void;
  setNotificationState(state: NotificationState): void;
}

const initialReview: ReviewState = { cards: [], seq: 0, paused: false, status: 'idle', error: null, deciding: null, decideError: null, notifications: 'unsupported' };

export const createReviewSlice: StateCreator<CockpitState, [], [], ReviewSlice> = (set, get) => {
  const update = (fn: (r: ReviewState) => ReviewState) => set((s) => ({ review: fn(s.review) }));
  const settled = (r: ReviewState, id: string) => (r.deciding === id ? null : r.deciding);
  return {
    review: initialReview,
    reviewLoading: () => update((r) => ({ ...r, status: r.status === 'ready' ? 'ready' : 'loading', error: null })),
    reviewReplaced: ({ cards, paused, seq }) =>
      update((r) => {
        const next = orderBySource(cards);
        // A failed decision stays visible only while its card is still waiting.
        const decideError = r.decideError && next.some((card) => card.id === r.decideError!.id) ? r.decideError : null;
        return { ...r, cards: next, seq: seq ?? 0, paused, status: 'ready', error: null, decideError };
      }),
    reviewDelta: (delta) => {
      const held = get().review;
      // Before the first list nothing is held to change: the list includes this delta.
      if (held.status !== 'ready') return true;
      const outcome = applyReviewDelta(held, delta);
      if (outcome.kind === 'gap') return false;
      if (outcome.kind === 'applied') {
        update((r) => {
          const decideError = r.decideError && outcome.cards.some((card) => card.id === r.decideError!.id) ? r.decideError : null;
          return { ...r, cards: outcome.cards, seq: delta.seq, paused: delta.paused, decideError };
        });
      }
      return true;
    },
    reviewFailed: (message) => update((r) => ({ ...r, status: r.status === 'ready' ? 'ready' : 'error', error: message })),
    decisionSending: (id) => update((r) => ({ ...r, deciding: id, decideError: null })),
    // The runtime has settled the card, so it leaves the queue now even if its event is still on the way.
    decisionSent: (id) => update((r) => ({ ...r, deciding: settled(r, id), cards: r.cards.filter((card) => card.id !== id) })),
    decisionFailed: (id, message) => update((r) => ({ ...r, deciding: settled(r, id), decideError: { id, message } })),
    setNotificationState: (notifications) => update((r) => (r.notifications === notifications ? r : { ...r, notifications })),
  };
};
