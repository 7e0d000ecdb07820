/*
 * Waiting: per-attempt deadlines combined with the caller's signal, and the pause between
 * attempts. Only a 429 or a 5xx is tried again (classify.ts decides); a timeout is not, because
 * a provider that did not answer in timeoutMs will rarely answer the same request faster, and
 * the person is already waiting.
 */

export interface RetryPolicy {
  /** The first pause; each further one doubles, up to maxDelayMs, then gets up to half of it taken off at random. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this gives up at once rather than leave the person waiting. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The pause before retry number `retry` (0 for the first retry). Jitter keeps clients that
 * failed together from coming back together; a provider's Retry-After is obeyed as given.
 */
export function retryDelayMs(retry: number, policy: RetryPolicy, random: () => number, retryAfter?: number): number {
  if (retryAfter !== undefined) return retryAfter;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * One attempt's signal: the caller's, plus a timer of `timeoutMs`. A stream calls `touch` on
 * every piece it receives, so a long answer that keeps coming is not cut off, while a provider
 * that stops sending is. `timedOut` tells a timeout from the caller's own cancellation.
 */
export class AttemptDeadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expired = false;

  constructor(
    private readonly timeoutMs: number,
    callerSignal?: AbortSignal,
  ) {
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
    this.arm();
  }

  get timedOut(): boolean {
    return this.expired;
  }

  touch(): void {
    if (this.expired || this.controller.signal.aborted) return;
    clearTimeout(this.timer);
    this.arm();
  }

  /** Stops the timer and aborts whatever the attempt left running (a stream the caller stopped reading). */
  dispose(): void {
    clearTimeout(this.timer);
    if (!this.controller.signal.aborted) this.controller.abort(new DOMException('the model call is over', 'AbortError'));
  }

  private arm(): void {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, 'TimeoutError'));
    }, this.timeoutMs);
  }
}
