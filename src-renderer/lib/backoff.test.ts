import { describe, expect, it } from 'vitest';
import { reconnectDelay } from './backoff.js';

describe('reconnectDelay', () => {
  it('starts at 250 ms and doubles', () => {
    expect([0, 1, 2, 3, 4].map(reconnectDelay)).toEqual([250, 500, 1000, 2000, 4000]);
  });

  it('caps at 5 s however many attempts failed', () => {
    expect(reconnectDelay(5)).toBe(5000);
    expect(reconnectDelay(1000)).toBe(5000);
  });

  it('treats a negative attempt as the first', () => {
    expect(reconnectDelay(-3)).toBe(250);
  });
});
