import { describe, expect, it } from 'vitest';
import { TokenBucket } from './rate-limit.js';

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function takeMany(bucket: TokenBucket, n: number): boolean[] {
  return Array.from({ length: n }, () => bucket.take());
}

describe('TokenBucket', () => {
  it('allows a burst of `capacity`, then refuses', () => {
    const c = clock();
    const bucket = new TokenBucket(5, 5, c.now);
    expect(takeMany(bucket, 5)).toEqual([true, true, true, true, true]);
    expect(bucket.take()).toBe(false);
    expect(bucket.take()).toBe(false);
  });

  it('refills at perMinute per minute, never faster', () => {
    const c = clock();
    const bucket = new TokenBucket(6, 6, c.now); // one token every 10 s
    takeMany(bucket, 6);
    expect(bucket.take()).toBe(false);
    c.advance(9_999);
    expect(bucket.take()).toBe(false);
    c.advance(1);
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    c.advance(30_000);
    expect(takeMany(bucket, 4)).toEqual([true, true, true, false]);
  });

  it('refused attempts do not consume tokens or reset the refill', () => {
    const c = clock();
    const bucket = new TokenBucket(60, 1, c.now); // one token per second
    expect(bucket.take()).toBe(true);
    for (let i = 0; i < 9; i++) {
      c.advance(100);
      expect(bucket.take()).toBe(false);
    }
    // 900 ms have passed in refused polls. Had a refusal reset the refill, the bucket would now
    // need another full second; it needs only the remaining ~100 ms (+1 for float accumulation).
    c.advance(101);
    expect(bucket.take()).toBe(true);
  });

  it('never holds more than `capacity`, however long it idles', () => {
    const c = clock();
    const bucket = new TokenBucket(60, 3, c.now);
    takeMany(bucket, 3);
    c.advance(24 * 60 * 60 * 1000);
    expect(takeMany(bucket, 5)).toEqual([true, true, true, false, false]);
  });

  it('defaults capacity to perMinute', () => {
    const c = clock();
    const bucket = new TokenBucket(4, undefined, c.now);
    expect(takeMany(bucket, 5)).toEqual([true, true, true, true, false]);
  });

  it('refuses everything with a zero rate', () => {
    const c = clock();
    const bucket = new TokenBucket(0, 0, c.now);
    expect(bucket.take()).toBe(false);
    c.advance(60_000);
    expect(bucket.take()).toBe(false);
  });
});
