import type { SubscriptionType } from '../../../src-shared/silas/context.js';
import { describeError } from '../client.js';
import { refreshingLoader } from '../refreshing-loader.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';

/** What the Stream page may ask of its context inspector. */
export interface StreamContextActions {
  /** Opens the panel and reads the conversation's context. */
  showStreamContext(): void;
  hideStreamContext(): void;
  /** Reads the context again (the panel's Refresh). */
  refreshStreamContext(): void;
  /** Keeps a file, a file's lines or a memory search in this conversation's context (`stream.subscribe`); resolves to whether it was kept. */
  keepInContext(sub: { sub_type: SubscriptionType; target: string }): Promise<boolean>;
  /** Deactivates, activates again or removes a subscription of this conversation. */
  changeSubscription(subId: string, change: 'deactivate' | 'reactivate' | 'remove'): void;
}

/** The context inspector's wiring, with the Stream's own signal that this tab's scope is (re)opened. */
export interface StreamContextWiring extends FeatureWiring<StreamContextActions> {
  /**
   * `stream.open` answered: only now does this session hold the scope, so a read sent before it
   * (on a reconnect) would be refused as another session's (docs/silas/context.md).
   */
  scopeOpened(): void;
}

/**
 * The context inspector beside the Stream (docs/architecture.md §4.7; spec 002 §5.7
 * `context_inspection`): `stream.context` for this tab's scope, read when the panel opens, when
 * the scope is (re)opened, when the Stream page is opened again, and after each turn finishes (or
 * the runtime adds a line of its own, a plan's result) while the panel is shown on the Stream page.
 * Only the newest read's answer lands; a refusal keeps the runtime's message.
 */
export function connectStreamContext({ call, store }: FeatureDeps): StreamContextWiring {
  const state = () => store.getState();
  const watching = () => state().streamContext.shown && state().navigation.route === 'stream';
  /** The scope this session holds, once `stream.open` answered. */
  const held = () => (state().stream.status === 'open' ? state().stream.scope : null);
  let opened = false;
  /** The scope of the read on its way. */
  let reading = '';

  const context = refreshingLoader(
    {
      fetch: () => call('stream.context', { scope: reading }),
      loading: () => state().streamContextLoading(reading),
      loaded: (view) => state().streamContextLoaded(view),
      failed: (error) => state().streamContextFailed(describeError(error)),
    },
    0,
  );

  /** Reads the context if the person can see it and the scope is this session's. */
  function read(): void {
    const scope = held();
    if (!watching() || !opened || scope === null) return;
    reading = scope;
    context.load();
  }

  /** One subscription change at a time; the context is read again after it, whatever its outcome. */
  async function change(send: (scope: string) => Promise<unknown>): Promise<boolean> {
    const scope = held();
    if (scope === null || !opened) {
      state().streamSubscriptionSettled('the conversation is not open yet; wait for it to connect');
      return false;
    }
    state().streamSubscriptionPending();
    try {
      await send(scope);
      state().streamSubscriptionSettled(null);
      return true;
    } catch (error) {
      state().streamSubscriptionSettled(describeError(error));
      return false;
    } finally {
      read();
    }
  }

  return {
    // A (re)connect: answers of the old connection are dropped, and nothing is read until the scope is opened again.
    reload() {
      opened = false;
      context.cancel();
    },
    scopeOpened() {
      opened = true;
      read();
    },
    opened: { stream: read },
    events: {
      'stream.event': (event) => {
        if (event.scope !== held()) return;
        if (event.type === 'turn_finished' || (event.type === 'message' && event.turn_id === null)) read();
      },
    },
    actions: {
      showStreamContext() {
        state().streamContextShown(true);
        read();
      },
      hideStreamContext: () => state().streamContextShown(false),
      refreshStreamContext: read,
      keepInContext: (sub) => change((scope) => call('stream.subscribe', { scope, ...sub })),
      changeSubscription(subId, what) {
        void change((scope) =>
          what === 'reactivate' ? call('stream.subscribe', { scope, reactivate: subId }) : call('stream.unsubscribe', { scope, sub_id: subId, remove: what === 'remove' }),
        );
      },
    },
    dispose: () => context.cancel(),
  };
}
