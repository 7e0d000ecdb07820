import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import type { AuditLog } from './audit-log.js';

/**
 * Publishes every entry that joins the chain, whichever process appended it: proxies and CLI
 * commands write to the same database, so the runtime watches the head rather than its own calls.
 */
export class AuditWatcher {
  private timer: NodeJS.Timeout | null = null;
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

  /** Reads what is new now; also called right after our own appends so the cockpit sees them at once. */
  poll(): void {
    for (;;) {
      const batch = this.audit.after(this.lastIndex, 500);
      for (const entry of batch) {
        this.lastIndex = entry.index;
        this.publish(entry);
      }
      if (batch.length < 500) return;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
