import type { CockpitStore } from '../../store/cockpit-store.js';
import type { FeatureWiring } from './feature.js';
import { parseRoute, routeHash, type Route } from '../routes.js';

export interface NavigationActions {
  navigate(route: Route): void;
}

interface NavigationDeps {
  store: CockpitStore;
  /** The window whose address bar carries the route; null in tests that do not navigate. */
  window: Pick<Window, 'location' | 'history' | 'addEventListener' | 'removeEventListener'> | null;
  /** Whether the runtime can be asked now: a page opened while offline is read on the next connect anyway. */
  connected(): boolean;
  /** A page other than the one shown was opened while connected. */
  opened(route: Route): void;
}

/** The route in the store and in the address bar, kept one (docs/architecture.md §4.7). */
export function connectNavigation({ store, window: win, connected, opened }: NavigationDeps): FeatureWiring<NavigationActions> {
  function routeChanged(route: Route): void {
    const previous = store.getState().navigation.route;
    store.getState().setRoute(route);
    if (route !== previous && connected()) opened(route);
  }

  function navigate(route: Route): void {
    routeChanged(route);
    const hash = routeHash(route);
    if (win && win.location.hash !== hash) win.history.pushState(null, '', hash);
  }

  const onHashChange = () => {
    if (win) routeChanged(parseRoute(win.location.hash));
  };
  win?.addEventListener('hashchange', onHashChange);

  return {
    reload: () => undefined,
    actions: { navigate },
    dispose: () => win?.removeEventListener('hashchange', onHashChange),
  };
}
