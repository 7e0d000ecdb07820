import { afterEach, describe, expect, it, vi } from 'vitest';
import { OTHER_HOSTS, RefusalWindows, type RecordedRefusal } from './refusal-window.js';

afterEach(() => {
  vi.useRealTimers();
});

const refusal = (host: string, port = 443) => ({ host, port, reason: 'not in x-silas-sandbox.network.hosts' });

describe('RefusalWindows', () => {
  it("records a host's first refusal at once and the rest of its window as one entry when the window closes", () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const recorded: RecordedRefusal[] = [];
    const windows = new RefusalWindows({ record: (r) => recorded.push(r), windowMs: 60_000 });
    for (let i = 0; i < 500; i += 1) windows.refuse(refusal('exfil.example.com'));
    expect(recorded).toEqual([{ ...refusal('exfil.example.com'), count: 1 }]);
    vi.advanceTimersByTime(60_000);
    expect(recorded[1]).toEqual({ ...refusal('exfil.example.com'), count: 499, windowStart: '2026-01-01T00:00:00.000Z', windowMs: 60_000 });
    // A refusal after the window is again a first, recorded at once.
    windows.refuse(refusal('exfil.example.com'));
    expect(recorded).toHaveLength(3);
    expect(recorded[2]!.count).toBe(1);
    // A window with nothing beyond its first writes nothing more.
    vi.advanceTimersByTime(60_000);
    expect(recorded).toHaveLength(3);
  });

  it('flushes every open window on demand (the egress proxy stopping), so no refusal goes uncounted', () => {
    const recorded: RecordedRefusal[] = [];
    const windows = new RefusalWindows({ record: (r) => recorded.push(r) });
    for (let i = 0; i < 10; i += 1) windows.refuse(refusal('a.example.com'));
    for (let i = 0; i < 3; i += 1) windows.refuse(refusal('b.example.com', 22));
    windows.flush();
    const total = (host: string) => recorded.filter((r) => r.host === host).reduce((sum, r) => sum + r.count, 0);
    expect(total('a.example.com')).toBe(10);
    expect(total('b.example.com')).toBe(3);
    expect(recorded).toHaveLength(4);
  });

  it('a server inventing host names: beyond the host budget, refusals share one window under "*"', () => {
    const recorded: RecordedRefusal[] = [];
    const windows = new RefusalWindows({ record: (r) => recorded.push(r), maxHosts: 4 });
    for (let i = 0; i < 1000; i += 1) windows.refuse(refusal(`h${i}.example.com`));
    windows.flush();
    expect(recorded.length).toBeLessThanOrEqual(6);
    expect(recorded.reduce((sum, r) => sum + r.count, 0)).toBe(1000);
    expect(recorded.at(-1)).toMatchObject({ host: OTHER_HOSTS, count: 996 - 1 });
  });

  it('a first refusal that cannot be recorded throws, so the caller does not answer as if it were', () => {
    const windows = new RefusalWindows({
      record: () => {
        throw new Error('disk full');
      },
    });
    expect(() => windows.refuse(refusal('a.example.com'))).toThrow('disk full');
  });
});
