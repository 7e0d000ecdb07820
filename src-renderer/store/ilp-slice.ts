import type { StateCreator } from 'zustand';
import type { CallResult } from '../../src-shared/contract/index.js';
import type { CockpitState } from './cockpit-store.js';
import * as l from './ilp-learned.js';
import type { IlpDistillOutcome, IlpLearnedState, IlpRollbackOutcome } from './ilp-learned.js';
import * as r from './ilp-state.js';
import type { IlpComposition, IlpPage, IlpState, IlpSummary } from './ilp-state.js';

/** The ILP page's state in the cockpit store (docs/ilp.md "Inspector"); the reducers are in ilp-state.ts and, for the learned slices, ilp-learned.ts. */
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
  ilpLearnedLoading(): void;
  ilpLearnedLoaded(result: CallResult<'ilp.slices'>): void;
  ilpLearnedFailed(message: string): void;
  ilpDistilling(): void;
  ilpDistilled(result: IlpDistillOutcome): void;
  ilpDistillFailed(message: string): void;
  ilpRollingBack(sliceId: string): void;
  ilpRolledBack(result: IlpRollbackOutcome): void;
  ilpRollbackFailed(sliceId: string, message: string): void;
}

export const createIlpSlice: StateCreator<CockpitState, [], [], IlpSlice> = (set) => {
  const update = (fn: (s: IlpState) => IlpState) => set((state) => ({ ilp: fn(state.ilp) }));
  const learned = (fn: (s: IlpLearnedState) => IlpLearnedState) => update((s) => ({ ...s, learned: fn(s.learned) }));
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
    ilpLearnedLoading: () => learned(l.learnedLoading),
    ilpLearnedLoaded: (result) => learned((s) => l.learnedLoaded(s, result)),
    ilpLearnedFailed: (message) => learned((s) => l.learnedFailed(s, message)),
    ilpDistilling: () => learned(l.distillRunning),
    ilpDistilled: (result) => learned((s) => l.distillDone(s, result)),
    ilpDistillFailed: (message) => learned((s) => l.distillFailed(s, message)),
    ilpRollingBack: (sliceId) => learned((s) => l.rollbackSending(s, sliceId)),
    ilpRolledBack: (result) => learned((s) => l.rollbackDone(s, result)),
    ilpRollbackFailed: (sliceId, message) => learned((s) => l.rollbackFailed(s, sliceId, message)),
  };
};
