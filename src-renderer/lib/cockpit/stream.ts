import { ErrorCode } from '../../../src-shared/errors.js';
import type { ModelsConfigureArgs } from '../../../src-shared/schemas/stream.js';
import { ClientError, describeError, isClientError } from '../client.js';
import type { Call, FeatureDeps, FeatureWiring } from './feature.js';
import { forgetScope, keepScope, readScope, type KeptScope, type ScopeStorage } from '../stream-scope.js';
import type { Transport } from '../transport.js';

/** What the Stream page may ask for. */
export interface StreamActions {
  /** Sends a message in this tab's scope; resolves false when it was not sent (the page keeps the text). */
  sendMessage(text: string): Promise<boolean>;
  /** Stops the running turn (and drops the queued ones). */
  cancelTurn(): void;
  /** First run (§1.5). The API key in `args` goes to the runtime's keyring call and nowhere else: not the store, not storage, not a log. */
  /** Stores `apiKey` (if any) through secure input first, then names its secret in the configuration. */
  configureModels(args: ModelsConfigureArgs, apiKey?: string | null): void;
  /** One short call to the proxy role's model. */
  testModels(): void;
  /** Reads the model status again (a key set with `silas secrets set` meanwhile). */
  checkModels(): void;
  openModelSetup(): void;
  closeModelSetup(): void;
}

export interface StreamWiringDeps extends FeatureDeps {
  /** §8.1 secure input: the transport's own path for a secret (never the conversation's socket); rejects with its problem. */
  storeSecret(name: string, value: string): Promise<void>;
  /** Where this tab keeps its scope (sessionStorage); null keeps nothing. */
  storage: ScopeStorage | null;
  /** This session holds the scope now (`stream.open` answered): what reads it may start. */
  onOpened?(): void;
}

/** §8.1 secure input: the transport's own path for a secret when it has one, else the `secrets.store` call (IPC). */
export function secretStore(transport: Transport, call: Call): (name: string, value: string) => Promise<void> {
  return async (name, value) => {
    if (!transport.storeSecret) {
      await call('secrets.store', { name, value });
      return;
    }
    const answer = await transport.storeSecret(name, value);
    if (!answer.ok) throw new ClientError(answer.error.code, answer.error.message);
  };
}

/**
 * The Stream's side of the wiring (docs/architecture.md §4.7): one scope per tab, resumed with
 * its key after a reload or a reconnect, and a fresh one when the runtime refuses the key.
 */
export function connectStream({ call, storeSecret, store, storage, generation, onOpened }: StreamWiringDeps): FeatureWiring<StreamActions> {
  const state = () => store.getState();

  function attempt(current: number, resume: KeptScope | null): void {
    call('stream.open', resume ? { resume } : {}).then(
      (result) => {
        if (current !== generation()) return;
        keepScope(storage, { scope: result.scope, key: result.key });
        state().streamOpened(result);
        onOpened?.();
      },
      (error: unknown) => {
        if (current !== generation()) return;
        // A lost connection says nothing about the key: the next connect tries it again.
        if (resume && !(isClientError(error) && error.code === ErrorCode.Unavailable)) {
          forgetScope(storage);
          attempt(current, null);
          return;
        }
        state().streamOpenFailed(describeError(error));
      },
    );
  }

  /** Opens (or resumes) this tab's scope; on every (re)connect. */
  function open(): void {
    state().streamOpening();
    attempt(generation(), readScope(storage));
  }

  function sendMessage(text: string): Promise<boolean> {
    const { scope, sending } = state().stream;
    if (scope === null || sending || text.trim() === '') return Promise.resolve(false);
    state().streamSending();
    return call('stream.send', { scope, text }).then(
      () => {
        state().streamSent();
        return true;
      },
      (error: unknown) => {
        state().streamSendFailed(describeError(error));
        return false;
      },
    );
  }

  function cancelTurn(): void {
    const { scope } = state().stream;
    if (scope === null) return;
    call('stream.cancel', { scope }).then(
      (result) => state().streamCancelled(result.cancelled),
      (error: unknown) => state().streamCancelFailed(describeError(error)),
    );
  }

  function configureModels(args: ModelsConfigureArgs, apiKey: string | null = null): void {
    if (state().stream.setup.busy !== null) return;
    state().modelSetupBusy('saving');
    const secret = args.api_key_secret;
    const stored = apiKey === null || secret === undefined ? Promise.resolve() : storeSecret(secret, apiKey);
    stored.then(() => call('models.configure', args)).then(
      (status) => state().modelsConfigured(status),
      (error: unknown) => state().modelSetupFailed('save', describeError(error)),
    );
  }

  function testModels(): void {
    if (state().stream.setup.busy !== null) return;
    state().modelSetupBusy('testing');
    call('models.test', { role: 'proxy' }).then(
      (result) => state().modelsTested(result),
      (error: unknown) => state().modelSetupFailed('test', describeError(error)),
    );
  }

  function checkModels(): void {
    if (state().stream.setup.busy !== null) return;
    state().modelSetupBusy('checking');
    call('models.status', {}).then(
      (status) => state().modelsLoaded(status),
      (error: unknown) => state().modelSetupFailed('check', describeError(error)),
    );
  }

  return {
    reload: open,
    events: { 'stream.event': (event) => state().streamEvent(event) },
    actions: {
      sendMessage,
      cancelTurn,
      configureModels,
      testModels,
      checkModels,
      openModelSetup: () => state().modelSetupOpened(),
      closeModelSetup: () => state().modelSetupClosed(),
    },
    dispose: () => undefined,
  };
}
