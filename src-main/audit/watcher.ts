import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import type { AuditLog } from './audit-log.js';

/**
 * Entries read and published per turn of the event loop: no turn over 50 ms
 * (docs/architecture.md §1).
 */
export const WATCH_PAGE = 500;

/**
 * Publishes every entry that joins the chain, whichever process appended it: proxies and CLI
 * commands write to the same database, so the runtime watches the head rather than its own calls.
 *
 * A backlog (busy proxies, a runtime that was stalled) is read one page per turn of the event
 * loop, not all at once: a WebSocket call or a proxy's approval request waits at most one page
 * (docs/architecture.md §1).
 */
export class AuditWatcher {
  private timer: NodeJS.Timeout | null = null;
  /** The next page of a backlog, when one is due. */
  private nextPage: NodeJS.Immediate | null = null;
  private lastIndex: number;

  constructor(
    private readonly audit: AuditLog,
    private readonly publish: (entry: AuditEntry) => void,
    private readonly intervalMs = 200,
  ) {
    this.lastIndex = audit.head()?.index ?? -1;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.poll(), this.intervalMs);
    this.timer.unref();
  }

  /**
   * Publishes the next page of what is new now, and schedules the page after it when there is
   * more; also called right after our own appends so the cockpit sees them at once. While a
   * backlog drains, a call adds nothing: the pages under way reach the head in order.
   */
  poll(): void {
    if (this.nextPage !== null) return;
    const batch = this.audit.after(this.lastIndex, WATCH_PAGE);
    for (const entry of batch) {
      this.lastIndex = entry.index;
      this.publish(entry);
    }
    if (batch.length === WATCH_PAGE) {
      this.nextPage = setImmediate(() => {
        this.nextPage = null;
        this.poll();
      });
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.nextPage) clearImmediate(this.nextPage);
    this.nextPage = null;
  }
}
