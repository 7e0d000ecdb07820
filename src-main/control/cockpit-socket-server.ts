import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { WS_CLOSE_GOING_AWAY } from '../../src-shared/contract/wire.js';
import { ControlSession, sessionSettings, type SessionLink, type SessionSettings } from './control-session.js';
import { credentialsFrom, type CockpitCredentialSource, type CockpitCredentials } from './cockpit-credentials.js';
import type { OriginPolicy } from './origin-policy.js';

export const WS_PATH = '/ws';
export const WS_MAX_MESSAGE_BYTES = 1024 * 1024;

export type { SecurityEventSink } from './control-session.js';

/**
 * `credentials` are the cockpit credentials of this run (never the ask credential of
 * control.json): the start credential and the links `silas open` issued. Each session is bound to
 * the one it used.
 */
export interface CockpitSocketServerOptions extends SessionSettings, CockpitCredentialSource {
  originPolicy: OriginPolicy;
}

export function tokenDigest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.write(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Request'}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(reason) + 1}\r\n\r\n${reason}\n`);
  // end() lets the response flush before the socket goes; destroy() could drop it.
  socket.end();
}

/**
 * The runtime's side of the cockpit's WebSocket (its client is src-renderer/lib/socket-client.ts),
 * the browser transport of the contract (DESIGN §2): loopback, Host and Origin allow-lists at the
 * upgrade (an Origin is required), the cockpit credential in the first frame within 5 s (never in
 * the URL), per-connection rate limit, and a router that answers every malformed frame without
 * closing the connection.
 */
export class CockpitSocketServer {
  private readonly wss: WebSocketServer;
  private readonly credentials: CockpitCredentials;
  private accepting = true;

  constructor(private readonly options: CockpitSocketServerOptions) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_MESSAGE_BYTES, clientTracking: true });
    this.credentials = credentialsFrom(options);
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
    if ([...url.searchParams.keys()].some((k) => /token|auth|key/i.test(k))) {
      return refuse(400, 'tokens are never accepted in URLs; send {"type":"auth","token":…} as the first message');
    }
    if (req.headers.origin === undefined) return refuse(403, 'missing Origin header; the WebSocket serves the cockpit in a browser only (proxies and CLI commands use the local control socket)');
    if (!this.options.originPolicy.originAllowed(req.headers.origin)) return refuse(403, 'forbidden Origin header');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, peer));
  }

  private onConnection(ws: WebSocket, peer: string): void {
    const link: SessionLink = {
      send: (frame) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
      },
      close: (code, reason) => ws.close(code, reason),
      isOpen: () => ws.readyState === ws.OPEN,
    };
    const { credentials } = this;
    const session: ControlSession = new ControlSession(link, {
      transport: 'websocket',
      peer,
      // The session remembers which credential it used, so revoking that one signs it out.
      tokenMatches: (candidate) => {
        const credential = credentials.match(candidate);
        if (credential !== null) credentials.bind(credential, { id: session.id, close: link.close });
        return credential !== null;
      },
      ...sessionSettings(this.options),
    });
    ws.on('close', () => {
      credentials.unbind(session.id);
      session.closed();
    });
    ws.on('error', () => ws.terminate());
    ws.on('message', (raw: RawData, isBinary: boolean) => session.receive(isBinary ? null : raw.toString()));
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
