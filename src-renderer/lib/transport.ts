import type { CallName, Envelope } from '../../src-shared/contract/index.js';
import { Emitter } from '../../src-shared/emitter.js';
import { ErrorCode } from '../../src-shared/errors.js';

/** Where the cockpit stands with the runtime; every surface shows this (spec 002 §0.5.1). */
export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'unauthorised' | 'no-token';

export type TransportEventListener = (name: string, payload: unknown) => void;
export type TransportStateListener = (state: ConnectionState) => void;

/**
 * One way of reaching the runtime's control plane. Calls never reject: every failure,
 * including a dropped connection, comes back as an error envelope so callers have one path.
 */
export interface Transport {
  readonly state: ConnectionState;
  call(name: CallName, args: unknown): Promise<Envelope<unknown>>;
  onEvent(listener: TransportEventListener): () => void;
  onState(listener: TransportStateListener): () => void;
  close(): void;
  /**
   * §8.1 secure input when the transport has its own path for a secret: the browser POSTs it to
   * /secrets/NAME, never over the WebSocket. Absent: the `secrets.store` call (IPC).
   */
  storeSecret?(name: string, value: string): Promise<Envelope<{ stored: true }>>;
}

export function unavailable(message: string): Envelope<never> {
  return { ok: false, error: { code: ErrorCode.Unavailable, message } };
}

/** The cockpit's listener registry: a throwing listener is logged and must not starve the others. */
export function listeners<A extends unknown[]>(): Emitter<A> {
  return new Emitter<A>((error) => console.error('silas cockpit: listener failed', error));
}

/**
 * Stands in when the cockpit cannot connect at all (no token): it keeps the app renderable
 * and answers every call with a reason instead of pretending to be offline-capable.
 */
export function createDisconnectedTransport(state: ConnectionState, reason: string): Transport {
  return {
    state,
    call: () => Promise.resolve({ ok: false, error: { code: ErrorCode.Unauthorized, message: reason } }),
    onEvent: () => () => {},
    onState: () => () => {},
    close: () => {},
  };
}
