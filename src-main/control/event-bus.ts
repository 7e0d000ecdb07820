import { events, type EventName, type EventPayload } from '../../src-shared/contract/events.js';
import { Emitter } from '../../src-shared/emitter.js';

export type AnyEventListener = (name: EventName, payload: unknown) => void;

/** Fan-out of contract events to every transport. Payloads are checked against the contract once, here. */
export class EventBus {
  // One broken subscriber (a closed socket, a destroyed window) must not starve the others.
  private readonly emitter = new Emitter<[EventName, unknown]>(() => undefined);

  publish<E extends EventName>(name: E, payload: EventPayload<E>): void {
    this.emitter.publish(name, events[name].payload.parse(payload));
  }

  subscribe(listener: AnyEventListener): () => void {
    return this.emitter.subscribe(listener);
  }

  get size(): number {
    return this.emitter.size;
  }
}
