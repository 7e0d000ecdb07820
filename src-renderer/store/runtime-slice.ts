import type { StateCreator } from 'zustand';
import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import type { CockpitState } from './cockpit-store.js';

export interface RuntimeSlice {
  runtime: { info: RuntimeInfo | null; error: string | null };
  runtimeLoaded(info: RuntimeInfo): void;
  runtimeFailed(message: string): void;
}

export const createRuntimeSlice: StateCreator<CockpitState, [], [], RuntimeSlice> = (set) => ({
  runtime: { info: null, error: null },
  runtimeLoaded: (info) => set({ runtime: { info, error: null } }),
  // Keep the last known info: a failed refresh after reconnect should not blank the header.
  runtimeFailed: (message) => set((s) => ({ runtime: { info: s.runtime.info, error: message } })),
});
