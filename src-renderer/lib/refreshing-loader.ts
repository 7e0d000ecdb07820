/**
 * A list the cockpit loads from the runtime and reloads when events say it changed: reloads
 * are debounced, and only the newest request's answer is applied (an older one that arrives
 * late, or one from before a disconnect, is dropped).
 */
export interface RefreshingLoader {
  load(): void;
  /** Reload after `delayMs` of quiet. */
  schedule(): void;
  /** Forget pending reloads and in-flight answers (disconnect, dispose). */
  cancel(): void;
}

export interface LoaderSteps<T> {
  fetch(): Promise<T>;
  loading(): void;
  loaded(value: T): void;
  failed(error: unknown): void;
}

export function refreshingLoader<T>(steps: LoaderSteps<T>, delayMs: number): RefreshingLoader {
  let request = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const clear = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  const load = () => {
    clear();
    const current = ++request;
    steps.loading();
    steps.fetch().then(
      (value) => current === request && steps.loaded(value),
      (error: unknown) => current === request && steps.failed(error),
    );
  };
  return {
    load,
    schedule() {
      clear();
      timer = setTimeout(load, delayMs);
    },
    cancel() {
      clear();
      request += 1;
    },
  };
}
