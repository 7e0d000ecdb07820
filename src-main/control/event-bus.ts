import { events, type EventName, type EventPayload } from '../../src-shared/contract/events.js';
import { Emitter } from '../../src-shared/emitter.js';

/** `target`: the one session an event is for (a conversation scope's events); absent for every reader. */
export type AnyEventListener = (name: EventName, payload: unknown, target?: string) => void;

/**
 * Fan-out of contract events to every transport. Payloads are checked against the contract once,
 * here. An event published `to` a session reaches only that session's subscription: a
 * conversation's tokens are its holder's alone (docs/silas/stream.md).
 */
export class EventBus {
  // One broken subscriber (a closed socket, a destroyed window) must not starve the others.
  private readonly emitter = new Emitter<[EventName, unknown, string | undefined]>(() => undefined);
  private readonly sessions = new Map<string, number>();

  publish<E extends EventName>(name: E, payload: EventPayload<E>): void {
    this.emitter.publish(name, events[name].payload.parse(payload), undefined);
  }

  /** Sends to one session; false when no subscription of that session is live (the event is dropped). */
  publishTo<E extends EventName>(session: string, name: E, payload: EventPayload<E>): boolean {
    const parsed = events[name].payload.parse(payload);
    if (!this.sessions.has(session)) return false;
    this.emitter.publish(name, parsed, session);
    return true;
  }

  /** Whether a subscription of `session` is live (its connection is still there). */
  hasSession(session: string): boolean {
    return this.sessions.has(session);
  }

  /** `session`: the id events `publishTo` that session carry; the listener filters on it. */
  subscribe(listener: AnyEventListener, session?: string): () => void {
    const unsubscribe = this.emitter.subscribe(listener);
    if (session === undefined) return unsubscribe;
    this.sessions.set(session, (this.sessions.get(session) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      unsubscribe();
      const left = (this.sessions.get(session) ?? 1) - 1;
      if (left <= 0) this.sessions.delete(session);
      else this.sessions.set(session, left);
    };
  }

  get size(): number {
    return this.emitter.size;
  }
}
