import { describe, expect, it } from 'vitest';
import { parseRoute, routeHash, ROUTES } from './routes.js';

describe('routes', () => {
  it('round-trips every route through its hash', () => {
    for (const route of ROUTES) expect(parseRoute(routeHash(route.id))).toBe(route.id);
  });

  it('tolerates a missing slash, a trailing slash and upper case', () => {
    expect(parseRoute('#activity')).toBe('activity');
    expect(parseRoute('#/ilp/')).toBe('ilp');
    expect(parseRoute('#/Review')).toBe('review');
  });

  it('falls back to Stream for empty, unknown and token fragments', () => {
    expect(parseRoute('')).toBe('stream');
    expect(parseRoute('#/nowhere')).toBe('stream');
    expect(parseRoute('#token=abc')).toBe('stream');
  });
});
