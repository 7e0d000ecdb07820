/** The persistent surfaces and the capability pages, in navigation order. */
export const ROUTES = [
  { id: 'stream', label: 'Stream' },
  { id: 'review', label: 'Review' },
  { id: 'activity', label: 'Activity' },
  { id: 'servers', label: 'Servers' },
  { id: 'policies', label: 'Policies' },
  { id: 'alignment', label: 'Alignment' },
  { id: 'memory', label: 'Memory' },
  { id: 'ilp', label: 'ILP' },
] as const;

export type Route = (typeof ROUTES)[number]['id'];

export const DEFAULT_ROUTE: Route = 'stream';

export function routeHash(route: Route): string {
  return `#/${route}`;
}

/** Maps `#/activity` (and tolerates `#activity`, trailing slashes, case) to a route; anything else is Stream. */
export function parseRoute(hash: string): Route {
  const id = hash.replace(/^#\/?/, '').replace(/\/+$/, '').toLowerCase();
  const match = ROUTES.find((route) => route.id === id);
  return match ? match.id : DEFAULT_ROUTE;
}
