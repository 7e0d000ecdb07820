import { randomUUID } from 'node:crypto';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';

/*
 * Exports read and imports uploaded by the cockpit in pieces, one call at a time (a WebSocket
 * message is bounded; docs/silas/memory-portability.md "From the cockpit"). Each holds something
 * until it ends: a read snapshot, a temporary file. One the cockpit stops calling (the tab was
 * closed, the connection lost) is closed after `idleMs` without a call, so nothing is left behind.
 */

export interface TransferSessionsOptions<T> {
  /** What a session is, in messages: "export", "upload". */
  what: string;
  /** How many may be open at once; one more is refused until one ends. */
  max: number;
  idleMs: number;
  now: () => number;
  /** Releases what the session holds; called once, when it ends, fails or is abandoned. */
  close: (value: T) => void;
}

export class TransferSessions<T> {
  private readonly open = new Map<string, { value: T; touched: number }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: TransferSessionsOptions<T>) {}

  add(value: T): string {
    this.sweep();
    const { what, max } = this.options;
    if (this.open.size >= max) {
      throw new SilasError(ErrorCode.Conflict, `${max} memory ${what}s are already in progress; let one finish (or wait ${Math.round(this.options.idleMs / 1000)} s for an abandoned one to be dropped), then try again`);
    }
    const id = randomUUID();
    this.open.set(id, { value, touched: this.options.now() });
    this.watch();
    return id;
  }

  /** The session, marked as used now; refused when it ended or was dropped. */
  take(id: string): T {
    this.sweep();
    const session = this.open.get(id);
    if (!session) {
      const idle = Math.round(this.options.idleMs / 1000);
      throw new SilasError(ErrorCode.NotFound, `no memory ${this.options.what} ${id.slice(0, 36)} in progress: it finished, failed, or was dropped after ${idle} s without a call; start it again`);
    }
    session.touched = this.options.now();
    return session.value;
  }

  /** Ends the session and releases what it holds; nothing when it already ended. */
  end(id: string): void {
    const session = this.open.get(id);
    if (!session) return;
    this.open.delete(id);
    if (this.open.size === 0) this.unwatch();
    this.options.close(session.value);
  }

  /** Ends every session idle for longer than `idleMs`. */
  sweep(): void {
    const oldest = this.options.now() - this.options.idleMs;
    for (const [id, session] of [...this.open]) if (session.touched < oldest) this.end(id);
  }

  /** Ends every session (the runtime stops). */
  endAll(): void {
    for (const id of [...this.open.keys()]) this.end(id);
  }

  get size(): number {
    return this.open.size;
  }

  // A sweep while any session is open, so an abandoned one is dropped even if no other call comes.
  private watch(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.sweep(), this.options.idleMs);
    this.timer.unref();
  }

  private unwatch(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
