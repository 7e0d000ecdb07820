/*
 * Refused connections recorded per host and window (docs/mcp-sandbox.md, "Refusals in the
 * ledger"): a server that retries a refused host in a loop must not write hundreds of ledger
 * entries a second. The first refusal of a host is recorded at once, before the refusal is
 * answered; the rest within its window are counted and recorded as one entry with the count
 * when the window closes, or when the egress proxy stops, so no attempt goes unrecorded.
 */

/** One refusal, as the egress proxy decides it. */
export interface Refusal {
  host: string;
  port: number;
  reason: string;
}

/** What the ledger gets: `count` refusals of `host`; a window's entry says when it began and how long it was. */
export interface RecordedRefusal extends Refusal {
  count: number;
  /** ISO time the window opened (absent on the first, immediate entry). */
  windowStart?: string;
  windowMs?: number;
}

export interface RefusalWindowOptions {
  record: (refusal: RecordedRefusal) => void;
  /** The window a host's further refusals are counted over. */
  windowMs?: number;
  /** Hosts recorded at once per window; refusals of further hosts are counted under the host `*`. */
  maxHosts?: number;
  now?: () => number;
}

/** The host under which refusals of hosts beyond `maxHosts` are counted. */
export const OTHER_HOSTS = '*';
const REFUSAL_WINDOW_MS = 60_000;
const REFUSAL_MAX_HOSTS = 32;

interface Window {
  first: Refusal;
  startedAt: number;
  /** Refusals after the one recorded at once. */
  count: number;
  timer: ReturnType<typeof setTimeout>;
}

export class RefusalWindows {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;
  private readonly maxHosts: number;
  private readonly now: () => number;

  constructor(private readonly options: RefusalWindowOptions) {
    this.windowMs = options.windowMs ?? REFUSAL_WINDOW_MS;
    this.maxHosts = options.maxHosts ?? REFUSAL_MAX_HOSTS;
    this.now = options.now ?? Date.now;
  }

  /**
   * Notes one refusal. Recorded at once when it is its host's first in a window (a throwing
   * `record` propagates: the caller must not answer as if it were recorded); counted otherwise.
   */
  refuse(refusal: Refusal): void {
    const open = this.windows.get(refusal.host);
    if (open) {
      open.count += 1;
      return;
    }
    // Hosts beyond the budget (a server inventing names) share one window under `*`, whose first
    // refusal is recorded at once like any host's.
    if (this.windows.size >= this.maxHosts) {
      const other = this.windows.get(OTHER_HOSTS);
      if (other) {
        other.count += 1;
        return;
      }
      this.options.record({ ...refusal, count: 1 });
      this.open(OTHER_HOSTS, { host: OTHER_HOSTS, port: 0, reason: `hosts beyond the first ${this.maxHosts} refused in one window (the first of them: ${refusal.host})` });
      return;
    }
    this.options.record({ ...refusal, count: 1 });
    this.open(refusal.host, refusal);
  }

  /** Records every open window's count now (the egress proxy is stopping). */
  flush(): void {
    for (const key of [...this.windows.keys()]) this.close(key);
  }

  private open(key: string, first: Refusal): Window {
    const window: Window = { first, startedAt: this.now(), count: 0, timer: setTimeout(() => this.close(key), this.windowMs) };
    window.timer.unref();
    this.windows.set(key, window);
    return window;
  }

  private close(key: string): void {
    const window = this.windows.get(key);
    if (!window) return;
    clearTimeout(window.timer);
    this.windows.delete(key);
    if (window.count === 0) return;
    try {
      this.options.record({ ...window.first, count: window.count, windowStart: new Date(window.startedAt).toISOString(), windowMs: Math.max(0, this.now() - window.startedAt) });
    } catch {
      // The ledger refused the entry (closing, full disk): the connections were refused all the same.
    }
  }
}
