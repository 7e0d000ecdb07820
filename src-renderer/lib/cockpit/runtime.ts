import type { CockpitRevokeResult } from '../../../src-shared/schemas/cockpit-link.js';
import { describeError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';

export interface RuntimeActions {
  /**
   * Signs out every other cockpit tab and link (`cockpit.revokeSessions`); this session stays.
   * Resolves with the counts, or rejects with the runtime's message.
   */
  revokeSessions(): Promise<CockpitRevokeResult>;
}

/** The runtime the cockpit is connected to: what it is, and the sessions it lets in (docs/architecture.md §4.7). */
export function connectRuntime({ call, store, generation }: FeatureDeps): FeatureWiring<RuntimeActions> {
  return {
    reload() {
      const current = generation();
      call('runtime.info', {}).then(
        (info) => current === generation() && store.getState().runtimeLoaded(info),
        (error: unknown) => current === generation() && store.getState().runtimeFailed(describeError(error)),
      );
    },
    actions: { revokeSessions: () => call('cockpit.revokeSessions', {}) },
    dispose: () => undefined,
  };
}
