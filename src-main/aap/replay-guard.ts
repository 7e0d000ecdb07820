/*
 * Replay protection for handshake messages (spec 003 §9.4: unique `request_id` and `timestamp`).
 * A message is accepted once: its (peer, type, request id) is remembered until its timestamp
 * leaves the window, after which the timestamp alone refuses it as stale. So memory is bounded by
 * what arrives within one window; when even that exceeds the capacity the guard refuses new
 * messages rather than forget one it might see again.
 */

export interface Clock {
  now(): Date;
}

export interface ReplayWindowOptions {
  /** How old a message may be. Default 5 minutes. */
  windowMs?: number;
  /** How far ahead of our clock a timestamp may be. Default 30 seconds. */
  futureSkewMs?: number;
  /** Most message ids remembered at once. Default 100,000. */
  capacity?: number;
}

export type ReplayRefusal = 'missing_timestamp' | 'stale' | 'future' | 'replayed' | 'window_full';
export type ReplayCheck = { ok: true } | { ok: false; reason: ReplayRefusal; message: string };

export interface ReplayKeyed {
  message_type?: string | undefined;
  request_id: string;
  timestamp?: string | null | undefined;
}

export class MessageReplayGuard {
  private readonly seen = new Map<string, number>();
  private readonly windowMs: number;
  private readonly futureSkewMs: number;
  private readonly capacity: number;

  constructor(
    private readonly clock: Clock,
    options: ReplayWindowOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 5 * 60_000;
    this.futureSkewMs = options.futureSkewMs ?? 30_000;
    this.capacity = options.capacity ?? 100_000;
  }

  /** Records the message as seen if it is fresh and new; `peer` keeps two peers' ids apart. */
  accept(message: ReplayKeyed, peer = ''): ReplayCheck {
    if (!message.timestamp) return { ok: false, reason: 'missing_timestamp', message: 'the message has no timestamp (§9.4 requires one)' };
    const sent = Date.parse(message.timestamp);
    const now = this.clock.now().getTime();
    if (Number.isNaN(sent)) return { ok: false, reason: 'missing_timestamp', message: `timestamp ${JSON.stringify(message.timestamp)} is not a date-time` };
    if (sent < now - this.windowMs) return { ok: false, reason: 'stale', message: `timestamp ${message.timestamp} is older than the ${this.windowMs / 1000}s replay window` };
    if (sent > now + this.futureSkewMs) return { ok: false, reason: 'future', message: `timestamp ${message.timestamp} is ahead of this clock by more than ${this.futureSkewMs / 1000}s` };
    const key = `${peer}\u0000${message.message_type ?? ''}\u0000${message.request_id}`;
    const expires = this.seen.get(key);
    if (expires !== undefined && expires > now) return { ok: false, reason: 'replayed', message: `${message.message_type ?? 'message'} ${message.request_id} was already received` };
    if (this.seen.size >= this.capacity) this.prune(now);
    if (this.seen.size >= this.capacity) return { ok: false, reason: 'window_full', message: `more than ${this.capacity} messages within the replay window; refusing until older ones expire` };
    this.seen.set(key, sent + this.windowMs);
    return { ok: true };
  }

  get size(): number {
    return this.seen.size;
  }

  private prune(now: number): void {
    for (const [key, expires] of this.seen) if (expires <= now) this.seen.delete(key);
  }
}
