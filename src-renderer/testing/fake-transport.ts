import type { CallName, Envelope } from '../../src-shared/contract/index.js';
import { listeners, type ConnectionState, type Transport } from '../lib/transport.js';

type Handler = (args: unknown) => Envelope<unknown> | Promise<Envelope<unknown>>;

/** A transport a test drives by hand: answer calls with handlers, push states and events. */
export class FakeTransport implements Transport {
  state: ConnectionState;
  readonly calls: { name: CallName; args: unknown }[] = [];
  closed = false;
  private readonly handlers = new Map<string, Handler>();
  private readonly events = listeners<[string, unknown]>();
  private readonly states = listeners<[ConnectionState]>();

  constructor(state: ConnectionState = 'connecting') {
    this.state = state;
  }

  handle(name: CallName, handler: Handler): this {
    this.handlers.set(name, handler);
    return this;
  }

  async call(name: CallName, args: unknown): Promise<Envelope<unknown>> {
    this.calls.push({ name, args });
    const handler = this.handlers.get(name);
    if (!handler) return { ok: false, error: { code: 'E_UNAVAILABLE', message: `no handler for ${name}` } };
    return handler(args);
  }

  callsTo(name: CallName): unknown[] {
    return this.calls.filter((c) => c.name === name).map((c) => c.args);
  }

  onEvent(listener: (name: string, payload: unknown) => void): () => void {
    return this.events.subscribe(listener);
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    return this.states.subscribe(listener);
  }

  close(): void {
    this.closed = true;
  }

  setState(state: ConnectionState): void {
    this.state = state;
    this.states.publish(state);
  }

  emit(name: string, payload: unknown): void {
    this.events.publish(name, payload);
  }
}

export const runtimeInfo = {
  version: '0.1.0',
  mode: 'headless' as const,
  home: '/home/ada/.silas',
  ownerFingerprint: 'SHA256:9f2c1be07a51d4c3e8f0',
  startedAt: '2026-01-01T12:00:00.000Z',
  pid: 4242,
};

/** Flushes promise callbacks queued by transport answers. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}
