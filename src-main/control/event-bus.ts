import { events, type EventName, type EventPayload } from '../../src-shared/contract/events.js';

export type AnyEventListener = (name: EventName, payload: unknown) => void;

/** Fan-out of contract events to every transport. Payloads are checked against the contract once, here. */
export class EventBus {
  private readonly listeners = new Set<AnyEventListener>();

  publish<E extends EventName>(name: E, payload: EventPayload<E>): void {
    const checked = events[name].payload.parse(payload);
    for (const listener of [...this.listeners]) {
      try {
        listener(name, checked);
      } catch {
        // One broken subscriber (a closed socket, a destroyed window) must not starve the others.
      }
    }
  }

  subscribe(listener: AnyEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
