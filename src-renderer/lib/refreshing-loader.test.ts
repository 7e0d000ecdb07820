import { afterEach, describe, expect, it, vi } from 'vitest';
import { refreshingLoader } from './refreshing-loader.js';

afterEach(() => vi.useRealTimers());

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('refreshingLoader', () => {
  it('applies only the newest answer, and none after cancel', async () => {
    const pending: ReturnType<typeof deferred<string>>[] = [];
    const seen: string[] = [];
    const loader = refreshingLoader({ fetch: () => { const d = deferred<string>(); pending.push(d); return d.promise; }, loading: () => seen.push('loading'), loaded: (v) => seen.push(`loaded ${v}`), failed: (e) => seen.push(`failed ${String(e)}`) }, 300);
    loader.load();
    loader.load();
    pending[0]!.resolve('old');
    pending[1]!.resolve('new');
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual(['loading', 'loading', 'loaded new']);
    loader.load();
    loader.cancel();
    pending[2]!.reject('boom');
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual(['loading', 'loading', 'loaded new', 'loading']);
  });

  it('debounces scheduled reloads and cancel drops a pending one', () => {
    vi.useFakeTimers();
    const fetch = vi.fn(() => Promise.resolve(1));
    const loader = refreshingLoader({ fetch, loading() {}, loaded() {}, failed() {} }, 300);
    loader.schedule();
    vi.advanceTimersByTime(200);
    loader.schedule();
    vi.advanceTimersByTime(299);
    expect(fetch).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fetch).toHaveBeenCalledTimes(1);
    loader.schedule();
    loader.cancel();
    vi.advanceTimersByTime(1000);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
