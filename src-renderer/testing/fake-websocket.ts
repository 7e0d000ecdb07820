import type { WebSocketLike } from '../lib/socket-client.js';

/** A scriptable stand-in for the DOM WebSocket: records what the client sends, lets a test play the server. */
export class FakeWebSocket implements WebSocketLike {
  static instances: FakeWebSocket[] = [];

  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason?: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly sent: unknown[] = [];
  closedWith: number | undefined | null = null;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }

  static reset(): void {
    FakeWebSocket.instances = [];
  }

  static latest(): FakeWebSocket {
    const socket = FakeWebSocket.instances.at(-1);
    if (!socket) throw new Error('no socket was opened');
    return socket;
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }

  close(code?: number): void {
    this.closedWith = code;
  }

  serverOpen(): void {
    this.onopen?.({});
  }

  serverSend(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }

  serverReady(): void {
    this.serverOpen();
    this.serverSend({ type: 'ready', serverVersion: '0.1.0' });
  }

  serverClose(code: number): void {
    this.onclose?.({ code });
  }

  serverError(): void {
    this.onerror?.({});
  }
}
