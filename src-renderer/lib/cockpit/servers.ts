import { affectsServers } from '../../store/servers-slice.js';
import { describeError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';
import { refreshingLoader } from '../refreshing-loader.js';

/** A burst of proxy events (a tools/list pins every tool) reloads the Servers page once. */
export const SERVERS_REFRESH_DELAY_MS = 300;

/** The Servers page's governed servers (docs/architecture.md §4.7); it asks for nothing itself. */
export function connectServers({ call, store }: FeatureDeps): FeatureWiring {
  const servers = refreshingLoader(
    {
      fetch: () => call('servers.list', {}).then((r) => r.servers),
      loading: () => store.getState().serversLoading(),
      loaded: (list) => store.getState().serversLoaded(list),
      failed: (error) => store.getState().serversFailed(describeError(error)),
    },
    SERVERS_REFRESH_DELAY_MS,
  );
  return {
    reload: () => servers.load(),
    entry(entry) {
      if (affectsServers(entry.event)) servers.schedule();
    },
    actions: {},
    dispose: () => servers.cancel(),
  };
}
