import { affectsStanding } from '../../store/standing-slice.js';
import { describeError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';
import { refreshingLoader } from '../refreshing-loader.js';

/** Standing approvals are reloaded once per burst of their audit events. */
export const STANDING_REFRESH_DELAY_MS = 300;

/** What the Policies page's list of standing approvals may ask for. */
export interface StandingActions {
  /** Revokes one standing "always allow"; one revocation at a time, then the list is reloaded. */
  revokeStanding(id: string): void;
}

/** The standing "always allow" approvals (docs/architecture.md §4.7), reloaded as their audit events arrive. */
export function connectStanding({ call, store, generation }: FeatureDeps): FeatureWiring<StandingActions> {
  const state = () => store.getState();
  const standing = refreshingLoader(
    {
      fetch: () => call('approvals.listStanding', {}).then((r) => r.standing),
      loading: () => state().standingLoading(),
      loaded: (list) => state().standingLoaded(list),
      failed: (error) => state().standingFailed(describeError(error)),
    },
    STANDING_REFRESH_DELAY_MS,
  );

  function revokeStanding(id: string): void {
    if (state().standing.revoking !== null) return;
    const current = generation();
    state().standingRevoking(id);
    call('approvals.revokeStanding', { id }).then(
      () => {
        state().standingRevoked(id);
        if (current === generation()) standing.load();
      },
      (error: unknown) => {
        state().standingRevokeFailed(id, describeError(error));
        // It may have been revoked elsewhere meanwhile: show what the runtime holds now.
        if (current === generation()) standing.load();
      },
    );
  }

  return {
    reload: () => standing.load(),
    entry(entry) {
      if (affectsStanding(entry.event)) standing.schedule();
    },
    actions: { revokeStanding },
    dispose: () => standing.cancel(),
  };
}
