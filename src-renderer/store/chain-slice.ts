import type { StateCreator } from 'zustand';
import type { ChainBreak, ChainVerification, ChainVerifyStatus, VerifyMode, VerifyRun } from '../../src-shared/schemas/audit.js';
import type { CockpitState } from './cockpit-store.js';

type ChainStatus = 'unknown' | 'verifying' | 'intact' | 'broken';

/** How far the runtime's verification thread has got. */
export interface ChainProgress {
  mode: VerifyMode;
  checked: number;
  total: number;
}

export interface ChainState {
  status: ChainStatus;
  firstInvalid: ChainBreak | null;
  /** Entries the last verification covered. */
  entries: number;
  checkpoints: number;
  verifiedAt: string | null;
  /** `new`: the last run checked only what was appended since the run before (or since the anchored checkpoint). */
  mode: VerifyMode | null;
  /** A run in progress; with a verdict still shown, the run is checking what is new. */
  progress: ChainProgress | null;
  /** The person asked for a run: "Verifying…" stays until its answer lands. */
  asked: boolean;
  error: string | null;
}

/**
 * A finished run as `audit.verify` answers it; a runtime from before verification in a worker
 * thread sends the verdict alone.
 */
type ChainResult = ChainVerification & { verifiedAt: string; mode?: VerifyMode | undefined };

export interface ChainSlice {
  chain: ChainState;
  /** `background`: keep showing the last verdict while the run checks what is new (a connect). */
  chainVerifying(background?: boolean): void;
  chainVerified(result: ChainResult): void;
  chainProgress(run: VerifyRun): void;
  /** The runtime's status (`audit.verifyStatus`, or the `audit.verified` event after any run). */
  chainStatus(status: ChainVerifyStatus): void;
  chainFailed(message: string): void;
}

const initialChain: ChainState = { status: 'unknown', firstInvalid: null, entries: 0, checkpoints: 0, verifiedAt: null, mode: null, progress: null, asked: false, error: null };

const hasVerdict = (status: ChainStatus) => status === 'intact' || status === 'broken';

function verdict(result: ChainResult): Omit<ChainState, 'progress' | 'asked' | 'error'> {
  return {
    status: result.valid ? 'intact' : 'broken',
    firstInvalid: result.valid ? null : result.firstInvalid,
    entries: result.entries,
    checkpoints: result.checkpoints,
    verifiedAt: result.verifiedAt,
    mode: result.mode ?? null,
  };
}

export const createChainSlice: StateCreator<CockpitState, [], [], ChainSlice> = (set) => ({
  chain: initialChain,
  chainVerifying: (background = false) =>
    set((s) => {
      if (background && hasVerdict(s.chain.status)) return { chain: { ...s.chain, progress: { mode: 'new', checked: 0, total: 0 }, asked: false, error: null } };
      return { chain: { ...s.chain, status: 'verifying', progress: null, asked: !background, error: null } };
    }),
  chainVerified: (result) => set({ chain: { ...verdict(result), progress: null, asked: false, error: null } }),
  chainProgress: (run) => set((s) => ({ chain: { ...s.chain, progress: { mode: run.mode, checked: run.checked, total: run.total } } })),
  chainStatus: (status) =>
    set((s) => {
      const progress = status.running ? { mode: status.running.mode, checked: status.running.checked, total: status.running.total } : null;
      if (s.chain.asked && status.running) return { chain: { ...s.chain, progress } };
      if (status.last) return { chain: { ...verdict(status.last), progress, asked: s.chain.asked && progress !== null, error: null } };
      // Nothing verified yet: "Verifying…" only while a run is actually going.
      const idle = s.chain.status === 'verifying' && !status.running;
      return { chain: { ...s.chain, status: idle ? 'unknown' : s.chain.status, progress, asked: false } };
    }),
  // A failed call says nothing about the chain, so the last verdict (if any) is not kept.
  chainFailed: (message) => set({ chain: { ...initialChain, error: message } }),
});

/** Entries appended since the last verification finished; null when never verified. */
export function selectNewSinceVerification(state: Pick<CockpitState, 'chain' | 'audit'>): number | null {
  if (state.chain.status !== 'intact' && state.chain.status !== 'broken') return null;
  return Math.max(0, state.audit.total - state.chain.entries);
}
