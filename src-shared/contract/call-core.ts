import { ErrorCode } from '../errors.js';
import type { Envelope } from './envelope.js';
import { ServerFrame } from './wire.js';

/** A call frame as a client sends it; the transport only serialises and delivers it. */
export interface CallFrame {
  type: 'call';
  id: number;
  name: string;
  args: unknown;
}

export interface CallCoreOptions {
  /** Answers not back within this many ms resolve as E_UNAVAILABLE; none by default (the server bounds its own waits). */
  timeoutMs?: number;
}

interface Pending {
  name: string;
  resolve: (envelope: Envelope<unknown>) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

function unavailableEnvelope(message: string): Envelope<never> {
  return { ok: false, error: { code: ErrorCode.Unavailable, message } };
}

/**
 * The transport-independent half of a control-plane client (WebSocket in the cockpit, the local
 * socket in proxies and the CLI): ids, the calls still waiting, their timeouts, and matching each
 * `result` frame to its call. Calls never reject: a send that throws, a timeout, a dropped
 * connection and a malformed answer all come back as error envelopes, so callers fail closed on
 * one path.
 */
export class CallCore {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly options: CallCoreOptions = {}) {}

  call(name: string, args: unknown, send: (frame: CallFrame) => void): Promise<Envelope<unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timeoutMs = this.options.timeoutMs;
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => this.settle(id, unavailableEnvelope(`${name}: no answer from the Silas runtime within ${timeoutMs} ms`)), timeoutMs);
      this.pending.set(id, { name, resolve, timer });
      try {
        send({ type: 'call', id, name, args });
      } catch {
        this.settle(id, unavailableEnvelope(`${name}: the connection to the Silas runtime is closing`));
      }
    });
  }

  /** Takes one frame's text: anything that is not JSON is ignored, like an invalid frame. */
  receiveText(text: string): ServerFrame | null {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return null;
    }
    return this.receive(raw);
  }

  /**
   * Takes one decoded frame from the server. A `result` settles its call; any other valid frame
   * (ready, event, closed) is returned for the transport to act on; an invalid one yields null.
   */
  receive(raw: unknown): ServerFrame | null {
    const parsed = ServerFrame.safeParse(raw);
    if (!parsed.success) {
      // A result for a waiting call whose envelope is malformed must not leave the call hanging.
      const id = (raw as { type?: unknown; id?: unknown } | null)?.type === 'result' ? (raw as { id?: unknown }).id : undefined;
      if (typeof id === 'number' && this.pending.has(id)) {
        this.settle(id, { ok: false, error: { code: ErrorCode.Internal, message: `${this.pending.get(id)!.name}: the runtime's answer is not a valid result envelope` } });
      }
      return null;
    }
    const frame = parsed.data;
    if (frame.type === 'result' && typeof frame.id === 'number') this.settle(frame.id, frame.result as Envelope<unknown>);
    return frame;
  }

  /** The connection is gone: every waiting call resolves as E_UNAVAILABLE with `message`. */
  failAll(message: string): void {
    for (const id of [...this.pending.keys()]) this.settle(id, unavailableEnvelope(message));
  }

  get waiting(): number {
    return this.pending.size;
  }

  private settle(id: number, envelope: Envelope<unknown>): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (pending.timer !== undefined) clearTimeout(pending.timer);
    pending.resolve(envelope);
  }
}
