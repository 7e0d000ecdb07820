import type { StateCreator } from 'zustand';
import type { ChainBreak, ChainVerification } from '../../src-shared/schemas/audit.js';
import type { CockpitState } from './cockpit-store.js';

export type ChainStatus = 'unknown' | 'verifying' | 'intact' | 'broken';

export interface ChainState {
  status: ChainStatus;
  firstInvalid: ChainBreak | null;
  /** Entries the last verification covered. */
  entries: number;
  checkpoints: number;
  verifiedAt: string | null;
  error: string | null;
}

export interface ChainSlice {
  chain: ChainState;
  chainVerifying(): void;
  chainVerified(result: ChainVerification & { verifiedAt: string }): void;
  chainFailed(message: string): void;
}

const initialChain: ChainState = { status: 'unknown', firstInvalid: null, entries: 0, checkpoints: 0, verifiedAt: null, error: null };

export const createChainSlice: StateCreator<CockpitState, [], [], ChainSlice> = (set) => ({
  chain: initialChain,
  chainVerifying: () => set((s) => ({ chain: { ...s.chain, status: 'verifying', error: null } })),
  chainVerified: (result) =>
    set({
      chain: {
        status: result.valid ? 'intact' : 'broken',
        firstInvalid: result.valid ? null : result.firstInvalid,
        entries: result.entries,
        checkpoints: result.checkpoints,
        verifiedAt: result.verifiedAt,
        error: null,
      },
    }),
  // A failed call says nothing about the chain, so the last verdict (if any) is not kept.
  chainFailed: (message) => set({ chain: { ...initialChain, error: message } }),
});

/** Entries appended since the last verification finished; null when never verified. */
export function selectNewSinceVerification(state: Pick<CockpitState, 'chain' | 'audit'>): number | null {
  if (state.chain.status !== 'intact' && state.chain.status !== 'broken') return null;
  return Math.max(0, state.audit.total - state.chain.entries);
}
