import type { StateCreator } from 'zustand';
import type { ModelsStatus, ModelsTestResult, StreamEvent, StreamOpenResult } from '../../src-shared/schemas/stream.js';
import type { CockpitState } from './cockpit-store.js';
import { applyStreamEvent, initialStream, streamOpened, type ModelSetupState, type StreamState } from './stream-reducer.js';

/**
 * The Stream (spec 002 §0.5.1): this tab's conversation scope with Silas, the answer being
 * written, the work it planned and whether a model is set up. Transitions only; the calls
 * and the tab's resume key live in lib/cockpit/stream.ts.
 */
export interface StreamSlice {
  stream: StreamState;
  streamOpening(): void;
  streamOpened(result: StreamOpenResult): void;
  streamOpenFailed(message: string): void;
  streamEvent(event: StreamEvent): void;
  streamSending(): void;
  streamSent(): void;
  streamSendFailed(message: string): void;
  /** `cancelled` false: nothing was running, so the page stops showing a turn in progress. */
  streamCancelled(cancelled: boolean): void;
  streamCancelFailed(message: string): void;
  modelsLoaded(status: ModelsStatus): void;
  modelSetupBusy(busy: NonNullable<ModelSetupState['busy']>): void;
  /** Saved: the setup stays open, so the person can test the connection, even once the models are ready. */
  modelsConfigured(status: ModelsStatus): void;
  modelsTested(result: ModelsTestResult): void;
  modelSetupFailed(action: 'save' | 'test' | 'check', message: string): void;
  modelSetupOpened(): void;
  modelSetupClosed(): void;
}

export const createStreamSlice: StateCreator<CockpitState, [], [], StreamSlice> = (set) => {
  const update = (fn: (s: StreamState) => StreamState) => set((state) => ({ stream: fn(state.stream) }));
  const setup = (fn: (s: ModelSetupState) => ModelSetupState) => update((s) => ({ ...s, setup: fn(s.setup) }));
  return {
    stream: initialStream,
    streamOpening: () => update((s) => ({ ...s, status: s.status === 'open' ? 'open' : 'opening', openError: null })),
    streamOpened: (result) => update((s) => streamOpened(s, result)),
    // A conversation already on screen stays readable; only sending needs the scope back.
    streamOpenFailed: (message) => update((s) => ({ ...s, status: s.status === 'open' ? 'open' : 'error', openError: message })),
    streamEvent: (event) => update((s) => applyStreamEvent(s, event)),
    streamSending: () => update((s) => ({ ...s, sending: true, composerError: null })),
    streamSent: () => update((s) => ({ ...s, sending: false })),
    streamSendFailed: (message) => update((s) => ({ ...s, sending: false, composerError: { action: 'send', message } })),
    streamCancelled: (cancelled) => update((s) => (cancelled ? { ...s, composerError: null } : { ...s, busy: false, turnId: null, draft: null, composerError: null })),
    streamCancelFailed: (message) => update((s) => ({ ...s, composerError: { action: 'cancel', message } })),
    modelsLoaded: (models) => update((s) => ({ ...s, models, setup: s.setup.busy === 'checking' ? { ...s.setup, busy: null } : s.setup })),
    modelSetupBusy: (busy) => setup((s) => ({ ...s, busy, problem: null, ...(busy === 'testing' ? { test: null } : {}), ...(busy === 'saving' ? { saved: false } : {}) })),
    modelsConfigured: (models) => update((s) => ({ ...s, models, setup: { ...s.setup, open: true, busy: null, saved: true, test: null, problem: null } })),
    modelsTested: (test) => setup((s) => ({ ...s, busy: null, test })),
    modelSetupFailed: (action, message) => setup((s) => ({ ...s, busy: null, problem: { action, message } })),
    modelSetupOpened: () => setup((s) => ({ ...s, open: true })),
    modelSetupClosed: () => setup(() => ({ ...initialStream.setup })),
  };
};
