import { ErrorCode } from '../../src-shared/errors.js';
import { CallCore, WS_CLOSE_UNAUTHORIZED, type CallName, type Envelope } from '../../src-shared/contract/index.js';
import { reconnectDelay } from './backoff.js';
import {
  listeners,
  unavailable,
  type ConnectionState,
  type Transport,
  type TransportEventListener,
  type TransportStateListener,
} from './transport.js';

/** The part of the DOM WebSocket this transport uses, so tests can hand in a fake. */
export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export interface CockpitSocketClientOptions {
  url: string;
  token: string;
  createSocket?: (url: string) => WebSocketLike;
  /** Tests pass a fake; the secret's POST goes through it. */
  fetch?: typeof fetch;
}

/** The runtime serves the control plane at /ws on the same origin as the cockpit. */
export function webSocketUrl(location: { protocol: string; host: string }): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws`;
}

function defaultCreateSocket(url: string): WebSocketLike {
  return new WebSocket(url) as unknown as WebSocketLike;
}

/**
 * The cockpit's side of its WebSocket in a browser (the runtime's side is
 * src-main/control/cockpit-socket-server.ts), the browser transport (DESIGN §2): the token goes in
 * the first frame, never in the URL; 4001 means the token was refused, so retrying would only spin;
 * anything else is treated as a transient drop and retried with capped exponential backoff.
 */
export class CockpitSocketClient implements Transport {
  private readonly url: string;
  private readonly token: string;
  private readonly createSocket: (url: string) => WebSocketLike;
  private readonly fetchImpl: typeof fetch;
  private readonly events = listeners<[string, unknown]>();
  private readonly states = listeners<[ConnectionState]>();
  private readonly calls = new CallCore();
  private socket: WebSocketLike | null = null;
  private current: ConnectionState = 'connecting';
  private failedAttempts = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;

  constructor(options: CockpitSocketClientOptions) {
    this.url = options.url;
    this.token = options.token;
    this.createSocket = options.createSocket ?? defaultCreateSocket;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.open();
  }

  get state(): ConnectionState {
    return this.current;
  }

  /** §8.1 secure input: a separate HTTP request to the same origin, the credential as a bearer token. */
  async storeSecret(name: string, value: string): Promise<Envelope<{ stored: true }>> {
    const origin = this.url.replace(/^ws(s?):\/\//, 'http$1://').replace(/\/[^/]*$/, '');
    let response: Response;
    try {
      response = await this.fetchImpl(`${origin}/secrets/${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ value }),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (error) {
      return unavailable(`could not reach the Silas runtime to store the secret (${error instanceof Error ? error.message : String(error)})`);
    }
    if (response.ok) return { ok: true, value: { stored: true } };
    const text = (await response.text().catch(() => '')).trim();
    const code = response.status === 401 || response.status === 403 ? ErrorCode.Unauthorized : response.status >= 500 ? ErrorCode.Internal : ErrorCode.InvalidArgs;
    return { ok: false, error: { code, message: text || `the runtime refused the secret (HTTP ${response.status})` } };
  }

  call(name: CallName, args: unknown): Promise<Envelope<unknown>> {
    const socket = this.socket;
    if (this.current !== 'connected' || !socket) {
      return Promise.resolve(unavailable(`${name}: not connected to the Silas runtime (${this.current})`));
    }
    return this.calls.call(name, args, (frame) => socket.send(JSON.stringify(frame)));
  }

  onEvent(listener: TransportEventListener): () => void {
    return this.events.subscribe(listener);
  }

  onState(listener: TransportStateListener): () => void {
    return this.states.subscribe(listener);
  }

  close(): void {
    this.disposed = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const socket = this.socket;
    this.socket = null;
    this.failPending('the cockpit closed the connection');
    if (socket) {
      try {
        socket.close(1000, 'cockpit closed');
      } catch {
        // Already closing; nothing left to release.
      }
    }
  }

  private open(): void {
    const socket = this.createSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      socket.send(JSON.stringify({ type: 'auth', token: this.token }));
    };
    socket.onmessage = (event) => {
      if (this.socket === socket) this.receive(event.data);
    };
    socket.onclose = (event) => this.dropped(socket, event.code);
    socket.onerror = () => this.dropped(socket, null);
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    const value = this.calls.receiveText(data);
    if (value?.type === 'ready') {
      this.failedAttempts = 0;
      this.setState('connected');
    } else if (value?.type === 'event') {
      this.events.publish(value.name, value.payload);
    }
    // Results are settled by the call core; 'closed' belongs to the local socket; a WebSocket learns about closing from its close frame.
  }

  /** Handles close and error alike; whichever arrives first for a socket wins. */
  private dropped(socket: WebSocketLike, code: number | null): void {
    if (this.socket !== socket) return;
    this.socket = null;
    socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
    if (code === null) {
      try {
        socket.close();
      } catch {
        // The socket is already dead; the reconnect below replaces it.
      }
    }
    this.failPending('the connection to the Silas runtime dropped; retry once it is back');
    if (this.disposed) return;
    if (code === WS_CLOSE_UNAUTHORIZED) {
      this.setState('unauthorised');
      return;
    }
    this.setState('reconnecting');
    const delay = reconnectDelay(this.failedAttempts);
    this.failedAttempts += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.disposed) this.open();
    }, delay);
  }

  private failPending(message: string): void {
    this.calls.failAll(message);
  }

  private setState(state: ConnectionState): void {
    if (this.current === state) return;
    this.current = state;
    this.states.publish(state);
  }
}
