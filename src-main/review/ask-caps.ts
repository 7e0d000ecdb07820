import type { AuditAppender } from '../../src-shared/audit/events.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { CardOrigin, DecisionKindName } from '../../src-shared/schemas/review.js';

/**
 * How many cards may wait at once (docs/review.md "Caps"). Anyone holding the ask credential
 * (HOME/control.json: every proxy, CLI command and agent on the machine) can ask, with every
 * field of the card chosen by it; without a cap one requester buries the person's real
 * questions and every change costs each cockpit session more. 50 per requester session is far
 * above what a real asker keeps waiting (a proxy waits on one call at a time per agent request,
 * `silas run` on one plan); 1,000 in total is more than a person can read, and keeps
 * `review.list` to one page.
 */
export const ASK_LIMITS = { perSource: 50, total: 1_000 } as const;
export type AskLimits = { perSource: number; total: number };

/** A refused ask is recorded at most this often per source (with the count since), so a flood cannot flood the ledger either. */
export const REFUSAL_AUDIT_WINDOW_MS = 60_000;

export type AskCap = 'per_source' | 'total' | 'evicted';

/**
 * Counts waiting cards per source and refuses an ask beyond a cap: the asker is answered at once
 * with E_RATE_LIMITED (fail closed: nothing waits, nothing is allowed) and the refusal is
 * audited as `review.ask_refused` — the first of each source always, then once per window.
 */
export class AskCaps {
  private readonly waiting = new Map<string, number>();
  private total = 0;
  private readonly reported = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly limits: AskLimits,
    private readonly audit: AuditAppender,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Throws (after auditing) when `origin` may not add one more card. With the queue full, a source
   * holding fewer cards than the largest holder is still admitted: the caller withdraws the newest
   * card of the source returned (fair share), so sessions that fill the queue between them can
   * never lock out the person's own governed servers (docs/review.md "Caps"). Returns that source,
   * or null when there is room.
   */
  admit(origin: CardOrigin, kind: DecisionKindName): string | null {
    const mine = this.waiting.get(origin.sourceId) ?? 0;
    const cap: AskCap | null = mine >= this.limits.perSource ? 'per_source' : this.total >= this.limits.total ? 'total' : null;
    if (cap === null) return null;
    if (cap === 'total') {
      const largest = this.largestSource();
      if (largest !== null && mine + 1 < largest.waiting) return largest.sourceId;
    }
    const limit = cap === 'per_source' ? this.limits.perSource : this.limits.total;
    this.record(origin, kind, cap, limit, cap === 'per_source' ? mine : this.total);
    throw new SilasError(
      ErrorCode.RateLimited,
      cap === 'per_source'
        ? `review: this requester session already has ${mine} decisions waiting (the cap per requester session is ${limit}); wait for the person to answer them before asking again`
        : `review: ${this.total} decisions are already waiting for the person (the cap is ${limit}); the question was refused, ask again later`,
    );
  }

  /** Records that the newest card of `evicted` was withdrawn to admit `origin` (audited like a refusal, under the evicted source). */
  evicted(evicted: { sourceId: string; channel: string; requester: string }, kind: DecisionKindName): void {
    this.record({ sourceId: evicted.sourceId, channel: evicted.channel, requester: evicted.requester } as CardOrigin, kind, 'evicted', this.limits.total, this.waiting.get(evicted.sourceId) ?? 0);
  }

  private largestSource(): { sourceId: string; waiting: number } | null {
    let best: { sourceId: string; waiting: number } | null = null;
    for (const [sourceId, waiting] of this.waiting) if (best === null || waiting > best.waiting) best = { sourceId, waiting };
    return best;
  }

  added(sourceId: string): void {
    this.waiting.set(sourceId, (this.waiting.get(sourceId) ?? 0) + 1);
    this.total += 1;
  }

  removed(sourceId: string): void {
    const left = (this.waiting.get(sourceId) ?? 1) - 1;
    if (left <= 0) this.waiting.delete(sourceId);
    else this.waiting.set(sourceId, left);
    this.total = Math.max(0, this.total - 1);
  }

  private record(origin: CardOrigin, kind: DecisionKindName, cap: AskCap, limit: number, waiting: number): void {
    const now = this.clock();
    const last = this.reported.get(origin.sourceId);
    if (last && now - last.at < REFUSAL_AUDIT_WINDOW_MS) {
      last.suppressed += 1;
      return;
    }
    this.audit.append('review.ask_refused', {
      source: origin.sourceId,
      channel: origin.channel,
      requester: origin.requester.slice(0, 300),
      kind,
      cap,
      limit,
      waiting,
      refused_since_last: (last?.suppressed ?? 0) + 1,
    });
    this.reported.set(origin.sourceId, { at: now, suppressed: 0 });
    // Forget sources that stopped asking long ago, so a churn of sessions does not grow this map.
    if (this.reported.size > 10_000) {
      for (const [id, entry] of this.reported) if (now - entry.at >= REFUSAL_AUDIT_WINDOW_MS) this.reported.delete(id);
    }
  }
}
