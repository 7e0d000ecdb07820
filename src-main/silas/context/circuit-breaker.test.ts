import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

describe('CircuitBreaker (§5.7: open after 3 consecutive failures, cool-down 5 minutes)', () => {
  it('opens on the third consecutive failure and lets one call through after the cool-down', () => {
    let now = 1_000;
    const breaker = new CircuitBreaker({ clock: () => now });
    expect([breaker.failed(), breaker.failed()]).toEqual([false, false]);
    expect(breaker.allows()).toBe(true);
    expect(breaker.failed()).toBe(true);
    expect(breaker.state()).toBe('open');
    now += 5 * 60_000 - 1;
    expect(breaker.allows()).toBe(false);
    now += 1;
    expect(breaker.state()).toBe('half_open');
    expect(breaker.allows()).toBe(true);
  });

  it('opens again for a whole cool-down when the call after it fails, and closes when it answers', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ clock: () => now });
    for (let i = 0; i < 3; i += 1) breaker.failed();
    now = 300_000;
    expect(breaker.failed()).toBe(true);
    now = 599_999;
    expect(breaker.state()).toBe('open');
    now = 600_000;
    expect(breaker.succeeded()).toBe(true);
    expect(breaker.state()).toBe('closed');
    expect(breaker.consecutiveFailures()).toBe(0);
  });

  it('needs the failures to be consecutive', () => {
    const breaker = new CircuitBreaker({ clock: () => 0 });
    breaker.failed();
    breaker.failed();
    expect(breaker.succeeded()).toBe(false);
    breaker.failed();
    breaker.failed();
    expect(breaker.state()).toBe('closed');
  });
});
