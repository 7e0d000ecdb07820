import type { StateCreator } from 'zustand';
import type { StreamContextView } from '../../src-shared/schemas/stream.js';
import type { CockpitState } from './cockpit-store.js';

/*
 * The context inspector beside the Stream (spec 002 §5.7 `context_inspection`): whether the person
 * asked to see it, and the last view the runtime gave of this tab's conversation context. Pure
 * transitions; the calls are in lib/cockpit/stream-context.ts.
 */

export interface StreamContextState {
  /** The panel is open beside the conversation. */
  shown: boolean;
  /** A `stream.context` call is on its way. */
  loading: boolean;
  /** The last view read; kept while a newer one is read, so the panel does not flicker. */
  view: StreamContextView | null;
  /** The runtime's message for the last read that failed (a refusal names its fix). */
  error: string | null;
  /** A subscription change (`stream.subscribe` / `stream.unsubscribe`) is on its way. */
  subscribing: boolean;
  /** The runtime's refusal of the last subscription change (it names the field and the fix). */
  subscriptionError: string | null;
}

export const initialStreamContext: StreamContextState = { shown: false, loading: false, view: null, error: null, subscribing: false, subscriptionError: null };

type S = StreamContextState;

export const contextShown = (s: S, shown: boolean): S => ({ ...s, shown });

/** Reading `scope`: a view of another conversation (a fresh scope after a refused resume) is dropped, never shown as this one's. */
export const contextLoading = (s: S, scope: string): S => ({ ...s, loading: true, view: s.view?.scope === scope ? s.view : null });

export const contextLoaded = (s: S, view: StreamContextView): S => ({ ...s, loading: false, view, error: null });

/** A failed read keeps the view shown before it, under the message. */
export const contextFailed = (s: S, message: string): S => ({ ...s, loading: false, error: message });

export const subscriptionPending = (s: S): S => ({ ...s, subscribing: true, subscriptionError: null });

/** `null`: the change was made; otherwise the runtime's message, shown beside the form. */
export const subscriptionSettled = (s: S, error: string | null): S => ({ ...s, subscribing: false, subscriptionError: error });

export interface StreamContextSlice {
  streamContext: StreamContextState;
  streamContextShown(shown: boolean): void;
  streamContextLoading(scope: string): void;
  streamContextLoaded(view: StreamContextView): void;
  streamContextFailed(message: string): void;
  streamSubscriptionPending(): void;
  streamSubscriptionSettled(error: string | null): void;
}

export const createStreamContextSlice: StateCreator<CockpitState, [], [], StreamContextSlice> = (set) => {
  const update = (fn: (s: S) => S) => set((state) => ({ streamContext: fn(state.streamContext) }));
  return {
    streamContext: initialStreamContext,
    streamContextShown: (shown) => update((s) => contextShown(s, shown)),
    streamContextLoading: (scope) => update((s) => contextLoading(s, scope)),
    streamContextLoaded: (view) => update((s) => contextLoaded(s, view)),
    streamContextFailed: (message) => update((s) => contextFailed(s, message)),
    streamSubscriptionPending: () => update(subscriptionPending),
    streamSubscriptionSettled: (error) => update((s) => subscriptionSettled(s, error)),
  };
};
