import type { StateCreator } from 'zustand';
import type { PendingApproval } from '../../src-shared/schemas/approval.js';
import type { PendingPlanApproval } from '../../src-shared/schemas/plan-approval.js';
import { compareIds, compareRequestedAt, sortOldestFirst } from './approval-queue.js';
import type { CockpitState } from './cockpit-store.js';

/*
 * Plan approvals (spec 002 §5.11, card contract §0.5.3): `silas run plan.md` asks the person to
 * approve one exact plan; the card waits on the Review page next to the tool-call approvals.
 */

export interface PlansState {
  /** Oldest first, like the tool-call queue. */
  pending: readonly PendingPlanApproval[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** Why the plan queue could not be loaded. */
  error: string | null;
  /** The plan whose decision is on its way; every decision button waits for it. */
  deciding: string | null;
  /** The last failed decision, with the runtime's message. */
  decideError: { id: string; message: string } | null;
}

export interface PlansSlice {
  plans: PlansState;
  plansLoading(): void;
  /** A full queue from `plans.list` or a `plans.changed` event: it replaces what is held. */
  plansReplaced(pending: readonly PendingPlanApproval[]): void;
  plansFailed(message: string): void;
  planDeciding(id: string): void;
  planDecided(id: string): void;
  planDecideFailed(id: string, message: string): void;
}

/** How many leading characters of the plan hash the card shows, as `silas run --approve-here` asks for them. */
export const PLAN_HASH_PREFIX_LENGTH = 8;

export function shortPlanHash(planHash: string): string {
  return planHash.slice(0, PLAN_HASH_PREFIX_LENGTH);
}

/** One entry of the Review page's single queue: a tool-call approval or a plan approval. */
export type ReviewEntry = { kind: 'tool'; card: PendingApproval } | { kind: 'plan'; card: PendingPlanApproval };

/**
 * The Review page's one queue (spec 002 §0.5.1: one active card, oldest first, "up next" below)
 * over both kinds of request. Decision: plans and tool calls are merged by `requestedAt`, so the
 * page keeps its single rule, "oldest first", whatever asked; on a tie the plan comes first (the
 * person started it from a terminal and is waiting there), then by id.
 */
export function reviewQueue(approvals: readonly PendingApproval[], plans: readonly PendingPlanApproval[]): ReviewEntry[] {
  const entries: ReviewEntry[] = [...plans.map((card) => ({ kind: 'plan' as const, card })), ...approvals.map((card) => ({ kind: 'tool' as const, card }))];
  const kindOrder = (entry: ReviewEntry) => (entry.kind === 'plan' ? 0 : 1);
  return entries.sort((a, b) => compareRequestedAt(a.card, b.card) || kindOrder(a) - kindOrder(b) || compareIds(a.card, b.card));
}

const initialPlans: PlansState = { pending: [], status: 'idle', error: null, deciding: null, decideError: null };

export const createPlansSlice: StateCreator<CockpitState, [], [], PlansSlice> = (set) => {
  const update = (fn: (p: PlansState) => PlansState) => set((s) => ({ plans: fn(s.plans) }));
  return {
    plans: initialPlans,
    plansLoading: () => update((p) => ({ ...p, status: p.status === 'ready' ? 'ready' : 'loading', error: null })),
    plansReplaced: (pending) =>
      update((p) => {
        const next = sortOldestFirst(pending);
        // A failed decision stays visible only while its card is still waiting.
        const decideError = p.decideError && next.some((card) => card.id === p.decideError!.id) ? p.decideError : null;
        return { ...p, pending: next, status: 'ready', error: null, decideError };
      }),
    plansFailed: (message) => update((p) => ({ ...p, status: p.status === 'ready' ? 'ready' : 'error', error: message })),
    planDeciding: (id) => update((p) => ({ ...p, deciding: id, decideError: null })),
    // The runtime has settled the plan, so it leaves the queue now even if its event is still on the way.
    planDecided: (id) => update((p) => ({ ...p, deciding: p.deciding === id ? null : p.deciding, pending: p.pending.filter((card) => card.id !== id) })),
    planDecideFailed: (id, message) => update((p) => ({ ...p, deciding: p.deciding === id ? null : p.deciding, decideError: { id, message } })),
  };
};
