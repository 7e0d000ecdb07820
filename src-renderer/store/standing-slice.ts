import type { StateCreator } from 'zustand';
import { auditCategory } from '../../src-shared/audit/events.js';
import type { CallResult } from '../../src-shared/contract/index.js';
import type { CockpitState } from './cockpit-store.js';

/** One standing "always allow" (server, tool and exact arguments), as `approvals.listStanding` returns it. */
export type StandingApproval = CallResult<'approvals.listStanding'>['standing'][number];

interface StandingState {
  /** Sorted by server, then tool, then oldest first. */
  items: readonly StandingApproval[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** Why the list could not be loaded (the last list stays visible). */
  error: string | null;
  /** The standing approval whose revocation is on its way; every Revoke button waits for it. */
  revoking: string | null;
  /** The last failed revocation, with the runtime's message. */
  revokeError: { id: string; message: string } | null;
}

export interface StandingSlice {
  standing: StandingState;
  standingLoading(): void;
  standingLoaded(items: readonly StandingApproval[]): void;
  standingFailed(message: string): void;
  standingRevoking(id: string): void;
  /** The runtime revoked `id`: it leaves the list at once, before the list is reloaded. */
  standingRevoked(id: string): void;
  standingRevokeFailed(id: string, message: string): void;
}

const initialStanding: StandingState = { items: [], status: 'idle', error: null, revoking: null, revokeError: null };

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Server, then tool, then oldest first: the order the Policies page lists them in. */
export function sortStanding(items: readonly StandingApproval[]): StandingApproval[] {
  return [...items].sort((a, b) => compare(a.server, b.server) || compare(a.tool, b.tool) || compare(a.createdAt, b.createdAt) || compare(a.id, b.id));
}

export const createStandingSlice: StateCreator<CockpitState, [], [], StandingSlice> = (set) => {
  const update = (fn: (s: StandingState) => StandingState) => set((state) => ({ standing: fn(state.standing) }));
  return {
    standing: initialStanding,
    standingLoading: () => update((s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'loading', error: null })),
    standingLoaded: (items) => update((s) => ({ ...s, items: sortStanding(items), status: 'ready', error: null })),
    standingFailed: (message) => update((s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'error', error: message })),
    standingRevoking: (id) => update((s) => ({ ...s, revoking: id, revokeError: null })),
    standingRevoked: (id) => update((s) => ({ ...s, revoking: s.revoking === id ? null : s.revoking, items: s.items.filter((item) => item.id !== id) })),
    standingRevokeFailed: (id, message) => update((s) => ({ ...s, revoking: s.revoking === id ? null : s.revoking, revokeError: { id, message } })),
  };
};

/** Audit events after which the standing approvals may have changed. */
export function affectsStanding(event: string): boolean {
  return auditCategory(event) === 'standing_approval';
}
