import type { StateCreator } from 'zustand';
import type { Route } from '../lib/routes.js';
import type { CockpitState } from './cockpit-store.js';

export interface NavigationSlice {
  navigation: { route: Route };
  setRoute(route: Route): void;
}

export function createNavigationSlice(initial: Route): StateCreator<CockpitState, [], [], NavigationSlice> {
  return (set) => ({
    navigation: { route: initial },
    setRoute: (route) => set((s) => (s.navigation.route === route ? s : { navigation: { route } })),
  });
}
