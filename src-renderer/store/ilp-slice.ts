import type { StateCreator } from 'zustand';
import type { CockpitState } from './cockpit-store.js';
import * as r from './ilp-state.js';
import type { IlpComposition, IlpPage, IlpState, IlpSummary } from './ilp-state.js';

/** The ILP page's state in the cockpit store (docs/ilp.md "Inspector"); the reducers are in ilp-state.ts. */
export interface IlpSlice {
  ilp: IlpState;
  ilpListLoading(): void;
  ilpNewestLoaded(page: IlpPage): void;
  ilpListFailed(message: string): void;
  ilpOlderLoading(): void;
  ilpOlderLoaded(page: IlpPage): void;
  ilpOlderFailed(message: string): void;
  ilpCompositionArrived(summary: IlpSummary): void;
  ilpSelected(id: string): void;
  ilpViewLoading(): void;
  ilpViewLoaded(id: string, composition: IlpComposition): void;
  ilpViewFailed(id: string, message: string): void;
  ilpReplayEdited(draft: string): void;
  ilpReplaySending(): void;
  ilpReplayDone(of: string, result: IlpComposition): void;
  ilpReplayFailed(of: string, message: string): void;
}

export const createIlpSlice: StateCreator<CockpitState, [], [], IlpSlice> = (set) => {
  const update = (fn: (s: IlpState) => IlpState) => set((state) => ({ ilp: fn(state.ilp) }));
  return {
    ilp: r.initialIlp,
    ilpListLoading: () => update(r.listLoading),
    ilpNewestLoaded: (page) => update((s) => r.newestLoaded(s, page)),
    ilpListFailed: (message) => update((s) => r.listFailed(s, message)),
    ilpOlderLoading: () => update(r.olderLoading),
    ilpOlderLoaded: (page) => update((s) => r.olderLoaded(s, page)),
    ilpOlderFailed: (message) => update((s) => r.olderFailed(s, message)),
    ilpCompositionArrived: (summary) => update((s) => r.compositionArrived(s, summary)),
    ilpSelected: (id) => update((s) => r.compositionSelected(s, id)),
    ilpViewLoading: () => update(r.viewLoading),
    ilpViewLoaded: (id, composition) => update((s) => r.viewLoaded(s, id, composition)),
    ilpViewFailed: (id, message) => update((s) => r.viewFailed(s, id, message)),
    ilpReplayEdited: (draft) => update((s) => r.replayEdited(s, draft)),
    ilpReplaySending: () => update(r.replaySending),
    ilpReplayDone: (of, result) => update((s) => r.replayDone(s, of, result)),
    ilpReplayFailed: (of, message) => update((s) => r.replayFailed(s, of, message)),
  };
};
