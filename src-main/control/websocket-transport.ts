import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { ClientAuthFrame, ClientCallFrame, WS_AUTH_TIMEOUT_MS, WS_CLOSE_GOING_AWAY, WS_CLOSE_UNAUTHORIZED, type ServerFrame } from '../../src-shared/contract/wire.js';
import { fail } from '../../src-shared/contract/envelope.js';
import { ErrorCode } from '../../src-shared/errors.js';
import type { EventBus } from './event-bus.js';
import type { OriginPolicy } from './origin-policy.js';
import { TokenBucket } from './rate-limit.js';
import { describeZodError, type ControlRouter } from './router.js';

export const WS_PATH = '/ws';
export const WS_MAX_MESSAGE_BYTES = 1024 * 1024;

export interface SecurityEventSink {
  (event: 'control.auth_failed' | 'control.rate_limited' | 'control.upgrade_refused', data: Record<string, string | number>): void;
}

export interface WebSocketTransportOptions {
  token: string;
  router: ControlRouter;
  events: EventBus;
  originPolicy: OriginPolicy;
  messagesPerMinute: number;
  serverVersion: string;
  authTimeoutMs?: number;
  onSecurityEvent?: SecurityEventSink;
  now?: () => number;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.write(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Request'}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(reason) + 1}\r\n\r\n${reason}\n`);
  // end() lets the response flush before the socket goes; destroy() could drop it.
  socket.end();
}

/**
 * The browser transport of the contract (DESIGN §2): loopback, Host and Origin allow-lists at
 * the upgrade, a token in the first frame within 5 s (never in the URL), per-connection rate
 * limit, and a router that answers every malformed frame without closing the connection.
 */
export class WebSocketTransport {
  private readonly wss: WebSocketServer;
  private readonly expectedToken: Buffer;
  private accepting = true;

  constructor(private readonly options: WebSocketTransportOptions) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_MESSAGE_BYTES, clientTracking: true });
    this.expectedToken = digest(options.token);
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const peer = req.socket.remoteAddress ?? 'unknown';
    const refuse = (status: number, reason: string) => {
      this.options.onSecurityEvent?.('control.upgrade_refused', { peer, reason, host: String(req.headers.host ?? ''), origin: String(req.headers.origin ?? '') });
      refuseUpgrade(socket, status, reason);
    };
    if (!this.accepting) return refuse(403, 'the runtime is shutting down');
    // An unparseable request target (e.g. `GET http://[/ws`) must not throw out of the
    // 'upgrade' listener: that would be an uncaught exception in the runtime.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://placeholder');
    } catch {
      return refuse(400, `malformed request target; the WebSocket endpoint is ${WS_PATH}`);
    }
    if (url.pathname !== WS_PATH) return refuse(400, `WebSocket endpoint is ${WS_PATH}`);
    if (!this.options.originPolicy.hostAllowed(req.headers.host)) return refuse(403, 'forbidden Host header');
    if (!this.options.originPolicy.originAllowed(req.headers.origin)) return refuse(403, 'forbidden Origin header');
    if ([...url.searchParams.keys()].some((k) => /token|auth|key/i.test(k))) {
      return refuse(400, 'tokens are never accepted in URLs; send {"type":"auth","token":…} as the first message');
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, peer));
  }

  private send(ws: WebSocket, frame: ServerFrame): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  }

  private tokenMatches(candidate: string): boolean {
    return timingSafeEqual(digest(candidate), this.expectedToken);
  }

  private onConnection(ws: WebSocket, peer: string): void {
    let authenticated = false;
    let unsubscribe: (() => void) | null = null;
    const authTimeoutMs = this.options.authTimeoutMs ?? WS_AUTH_TIMEOUT_MS;
    const bucket = new TokenBucket(this.options.messagesPerMinute, this.options.messagesPerMinute, this.options.now);
    let limitedReported = false;
    const authTimer = setTimeout(() => {
      this.options.onSecurityEvent?.('control.auth_failed', { peer, reason: `no auth message within ${authTimeoutMs} ms` });
      ws.close(WS_CLOSE_UNAUTHORIZED, 'authentication timeout');
    }, authTimeoutMs);

    ws.on('close', () => {
      clearTimeout(authTimer);
      unsubscribe?.();
    });
    ws.on('error', () => ws.terminate());

    ws.on('message', (raw: RawData, isBinary: boolean) => {
      // Once we have started closing (failed auth, shutdown), frames already in flight are
      // dropped: a rejected socket must not get further auth attempts or reach the router.
      if (ws.readyState !== ws.OPEN) return;
      if (!authenticated) {
        clearTimeout(authTimer);
        const auth = isBinary ? null : ClientAuthFrame.safeParse(safeJson(raw.toString()));
        if (!auth?.success || !this.tokenMatches(auth.data.token)) {
          this.options.onSecurityEvent?.('control.auth_failed', { peer, reason: auth?.success ? 'wrong token' : 'first message was not an auth frame' });
          ws.close(WS_CLOSE_UNAUTHORIZED, 'unauthorized');
          return;
        }
        authenticated = true;
        unsubscribe = this.options.events.subscribe((name, payload) => this.send(ws, { type: 'event', name, payload }));
        this.send(ws, { type: 'ready', serverVersion: this.options.serverVersion });
        return;
      }
      if (!bucket.take()) {
        if (!limitedReported) {
          limitedReported = true;
          this.options.onSecurityEvent?.('control.rate_limited', { peer, limit_per_minute: this.options.messagesPerMinute });
        }
        const id = idOf(safeJson(raw.toString()));
        this.send(ws, { type: 'result', id, result: fail(ErrorCode.RateLimited, `more than ${this.options.messagesPerMinute} messages per minute; slow down and retry`) });
        return;
      }
      void this.onCall(ws, raw, isBinary);
    });
  }

  private async onCall(ws: WebSocket, raw: RawData, isBinary: boolean): Promise<void> {
    if (isBinary) {
      this.send(ws, { type: 'result', id: null, result: fail(ErrorCode.BadRequest, 'binary frames are not supported; send JSON text') });
      return;
    }
    const json = safeJson(raw.toString());
    if (json === undefined) {
      this.send(ws, { type: 'result', id: null, result: fail(ErrorCode.BadRequest, 'message is not valid JSON') });
      return;
    }
    const frame = ClientCallFrame.safeParse(json);
    if (!frame.success) {
      this.send(ws, { type: 'result', id: idOf(json), result: fail(ErrorCode.BadRequest, `malformed call: ${describeZodError(frame.error, 'message')}`) });
      return;
    }
    const result = await this.options.router.dispatch(frame.data.name, frame.data.args, { transport: 'websocket' });
    this.send(ws, { type: 'result', id: frame.data.id, result });
  }

  /** Step 1 of graceful shutdown: refuse new connections. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Closes every connection with 1001 (spec 002 §18.2 step 5). */
  async closeAll(reason: string): Promise<void> {
    this.accepting = false;
    const closing = [...this.wss.clients].map(
      (ws) =>
        new Promise<void>((done) => {
          const timer = setTimeout(() => {
            ws.terminate();
            done();
          }, 1000);
          ws.once('close', () => {
            clearTimeout(timer);
            done();
          });
          ws.close(WS_CLOSE_GOING_AWAY, reason.slice(0, 100));
        }),
    );
    await Promise.all(closing);
    await new Promise<void>((done) => this.wss.close(() => done()));
  }

  get connections(): number {
    return this.wss.clients.size;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function idOf(json: unknown): string | number | null {
  if (json && typeof json === 'object' && 'id' in json) {
    const id = (json as { id: unknown }).id;
    if ((typeof id === 'string' && id.length <= 64) || (typeof id === 'number' && Number.isInteger(id))) return id;
  }
  return null;
}
