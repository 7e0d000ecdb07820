import type { StateCreator } from 'zustand';
import type { PendingApproval } from '../../src-shared/schemas/approval.js';
import { sortOldestFirst } from './approval-queue.js';
import type { CockpitState } from './cockpit-store.js';

export interface ApprovalQueue {
  pending: readonly PendingApproval[];
  paused: boolean;
}

/** Browser notification permission, or 'unsupported' (no Notification API, or the desktop shell notifies natively). */
export type NotificationState = NotificationPermission | 'unsupported';

export interface ApprovalsState {
  /** Oldest first; the first card is the active one (spec 002 §0.5.1). */
  pending: readonly PendingApproval[];
  paused: boolean;
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** Why the queue could not be loaded. */
  error: string | null;
  /** The card whose decision is on its way; every decision button waits for it. */
  deciding: string | null;
  /** The last failed decision, with the runtime's message. */
  decideError: { id: string; message: string } | null;
  notifications: NotificationState;
}

export interface ApprovalsSlice {
  approvals: ApprovalsState;
  approvalsLoading(): void;
  /** A full queue from `approvals.list` or an `approvals.changed` event: it replaces what is held. */
  approvalsReplaced(queue: ApprovalQueue): void;
  approvalsFailed(message: string): void;
  approvalDeciding(id: string): void;
  approvalDecided(id: string): void;
  approvalDecideFailed(id: string, message: string): void;
  setNotificationState(state: NotificationState): void;
}

const initialApprovals: ApprovalsState = {
  pending: [],
  paused: false,
  status: 'idle',
  error: null,
  deciding: null,
  decideError: null,
  notifications: 'unsupported',
};

export const createApprovalsSlice: StateCreator<CockpitState, [], [], ApprovalsSlice> = (set) => {
  const update = (fn: (a: ApprovalsState) => ApprovalsState) => set((s) => ({ approvals: fn(s.approvals) }));
  return {
    approvals: initialApprovals,
    approvalsLoading: () => update((a) => ({ ...a, status: a.status === 'ready' ? 'ready' : 'loading', error: null })),
    approvalsReplaced: ({ pending, paused }) =>
      update((a) => {
        const next = sortOldestFirst(pending);
        // A failed decision stays visible only while its card is still waiting.
        const decideError = a.decideError && next.some((card) => card.id === a.decideError!.id) ? a.decideError : null;
        return { ...a, pending: next, paused, status: 'ready', error: null, decideError };
      }),
    approvalsFailed: (message) => update((a) => ({ ...a, status: a.status === 'ready' ? 'ready' : 'error', error: message })),
    approvalDeciding: (id) => update((a) => ({ ...a, deciding: id, decideError: null })),
    // The runtime has settled the card, so it leaves the queue now even if its event is still on the way.
    approvalDecided: (id) =>
      update((a) => ({ ...a, deciding: a.deciding === id ? null : a.deciding, pending: a.pending.filter((card) => card.id !== id) })),
    approvalDecideFailed: (id, message) =>
      update((a) => ({ ...a, deciding: a.deciding === id ? null : a.deciding, decideError: { id, message } })),
    setNotificationState: (notifications) => update((a) => (a.notifications === notifications ? a : { ...a, notifications })),
  };
};
