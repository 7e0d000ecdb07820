/**
 * A typed fan-out: `subscribe` returns the function that unsubscribes, `publish` calls every
 * listener subscribed at that moment (one that unsubscribes another mid-publish does not skip
 * it). With `onError`, a throwing listener is reported there and the others still run (an event
 * bus must not let one closed socket starve the rest); without it the error propagates, as it
 * would from a direct call.
 */
export class Emitter<A extends unknown[] = []> {
  private readonly listeners = new Set<(...args: A) => void>();

  constructor(private readonly onError?: (error: unknown) => void) {}

  subscribe(listener: (...args: A) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  publish(...args: A): void {
    for (const listener of [...this.listeners]) {
      if (!this.onError) {
        listener(...args);
        continue;
      }
      try {
        listener(...args);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
