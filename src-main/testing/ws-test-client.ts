import { expect } from 'vitest';
import WebSocket from 'ws';

// Frames are whatever the server sent; tests assert their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Frame = any;

/** A WebSocket client for control-plane tests: queued frames, awaited one at a time. */
export class WsTestClient {
  readonly all: Frame[] = [];
  private readonly queue: Frame[] = [];
  private readonly waiters: Array<(frame: Frame) => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      this.all.push(frame);
      const waiter = this.waiters.shift();
      if (waiter) waiter(frame);
      else this.queue.push(frame);
    });
    ws.on('error', () => undefined);
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  next(): Promise<Frame> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  sendJson(value: unknown): void {
    this.ws.send(JSON.stringify(value));
  }

  async call(id: string | number, name: string, args?: unknown): Promise<Frame> {
    this.sendJson({ type: 'call', id, name, ...(args === undefined ? {} : { args }) });
    const frame = await this.next();
    expect(frame.type).toBe('result');
    return frame;
  }
}

/** The browser Origin the cockpit page served at `wsUrl`'s host sends: ws→http, wss→https. */
function cockpitOrigin(wsUrl: string): string {
  const url = new URL(wsUrl);
  return `${url.protocol === 'wss:' ? 'https' : 'http'}://${url.host}`;
}

export interface WsTestClientFactory {
  /** Opens as the cockpit page would (its own Origin) unless `options` says otherwise; `{ origin: undefined }` sends none. */
  open(url: string, options?: WebSocket.ClientOptions): Promise<WsTestClient>;
  /** Opens, sends the auth frame and checks the `ready` answer (exactly, when `ready` was given). */
  authed(url: string, token?: string): Promise<WsTestClient>;
}

/** Clients whose sockets are terminated through `register` (the test file's cleanup list). */
export function wsTestClients(register: (cleanup: () => void) => void, defaults: { token: string; ready?: Frame }): WsTestClientFactory {
  const open = async (url: string, options: WebSocket.ClientOptions = {}) => {
    const ws = new WebSocket(url, 'origin' in options ? options : { ...options, origin: cockpitOrigin(url) });
    const client = new WsTestClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    register(() => ws.terminate());
    return client;
  };
  return {
    open,
    async authed(url, token = defaults.token) {
      const client = await open(url);
      client.sendJson({ type: 'auth', token });
      const ready = await client.next();
      if (defaults.ready) expect(ready).toEqual(defaults.ready);
      else expect(ready.type).toBe('ready');
      return client;
    },
  };
}
