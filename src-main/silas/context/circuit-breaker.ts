/**
 * The scorer's circuit breaker of spec 002 §5.7 Tier 2: "open after 3 consecutive scorer
 * failures/timeouts, cool-down 5 minutes". While open, eviction uses the deterministic aggressive
 * heuristic without calling the model, so a scorer that is down or answering garbage costs each
 * turn nothing instead of two seconds. After the cool-down one call is let through (half-open): an
 * answer closes the breaker, another failure opens it for a new cool-down. The clock is injected so
 * tests never wait five minutes.
 */

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker (§5.7: 3). */
  threshold?: number;
  /** How long it stays open (§5.7: 5 minutes). */
  cooldownMs?: number;
  /** Milliseconds, monotonic enough for a cool-down. */
  clock?: () => number;
}

const SCORER_FAILURE_THRESHOLD = 3;
const SCORER_COOLDOWN_MS = 5 * 60_000;

export class CircuitBreaker {
  private readonly threshold: number;
  private readonly cooldownMs: number;
  private readonly clock: () => number;
  private failures = 0;
  private openedAt: number | null = null;

  constructor(options: CircuitBreakerOptions = {}) {
    this.threshold = options.threshold ?? SCORER_FAILURE_THRESHOLD;
    this.cooldownMs = options.cooldownMs ?? SCORER_COOLDOWN_MS;
    this.clock = options.clock ?? (() => performance.now());
  }

  state(): BreakerState {
    if (this.openedAt === null) return 'closed';
    return this.clock() - this.openedAt >= this.cooldownMs ? 'half_open' : 'open';
  }

  /** Whether the scorer may be called now (closed, or half-open after the cool-down). */
  allows(): boolean {
    return this.state() !== 'open';
  }

  /** Consecutive failures so far (reset by an answer). */
  consecutiveFailures(): number {
    return this.failures;
  }

  /** An answer the harness could use: the count starts again and the breaker closes. Returns whether it was open. */
  succeeded(): boolean {
    const wasOpen = this.openedAt !== null;
    this.failures = 0;
    this.openedAt = null;
    return wasOpen;
  }

  /** A failure, a timeout or a fallback answer. Returns true when this one opened the breaker. */
  failed(): boolean {
    this.failures += 1;
    if (this.failures < this.threshold) return false;
    this.openedAt = this.clock();
    return true;
  }

  /** Milliseconds the breaker stays open from its last opening (the audit says when it will try again). */
  get cooldown(): number {
    return this.cooldownMs;
  }
}
