import type { RateLimit } from '../policy/types.js';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets per normalised tool (spec 001 §3.5.2): `count` calls of burst, refilled at
 * `count` per period. The clock is injected so tests and conformance vectors never sleep.
 */
export class ToolRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  private bucket(tool: string, limit: RateLimit): Bucket {
    const t = this.now();
    let bucket = this.buckets.get(tool);
    if (!bucket) {
      bucket = { tokens: limit.count, updatedAt: t };
      this.buckets.set(tool, bucket);
      return bucket;
    }
    const refill = ((t - bucket.updatedAt) * limit.count) / limit.periodMs;
    bucket.tokens = Math.min(limit.count, bucket.tokens + refill);
    bucket.updatedAt = t;
    return bucket;
  }

  /** Takes one call from the tool's bucket; false when the limit is exceeded. */
  take(tool: string, limit: RateLimit): boolean {
    const bucket = this.bucket(tool, limit);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Records calls that already happened (conformance `context.previous_calls`). */
  consume(tool: string, limit: RateLimit, calls: number): void {
    const bucket = this.bucket(tool, limit);
    bucket.tokens = Math.max(0, bucket.tokens - calls);
  }
}
