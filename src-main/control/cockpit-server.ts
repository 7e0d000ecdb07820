import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { EventBus } from './event-bus.js';
import { cockpitCsp, createHttpHandler } from './http-surface.js';
import { OriginPolicy, isLoopbackHost } from './origin-policy.js';
import type { ControlRouter } from './router.js';
import { WS_PATH, WebSocketTransport, type SecurityEventSink } from './websocket-transport.js';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

export interface CockpitServerOptions {
  host: string;
  port: number;
  token: string;
  router: ControlRouter;
  events: EventBus;
  staticDir: string | null;
  messagesPerMinute: number;
  serverVersion: string;
  tls?: TlsFiles;
  /** Serve plain HTTP on a non-loopback address; only with an explicit flag. */
  insecureRemote?: boolean;
  /** Extra Host names accepted for a remote bind (e.g. the server's DNS name). */
  allowedHosts?: readonly string[];
  onSecurityEvent?: SecurityEventSink;
  authTimeoutMs?: number;
}

export interface CockpitAddress {
  port: number;
  url: string;
  wsUrl: string;
}

/**
 * Refuses a bind a person would regret: off loopback the socket must be protected by TLS,
 * or the operator must say `--insecure-remote` out loud (DESIGN invariant 6).
 */
export function assertBindAllowed(host: string, tls: boolean, insecureRemote: boolean): void {
  if (isLoopbackHost(host)) return;
  if (!tls && !insecureRemote) {
    throw new SilasError(
      ErrorCode.Config,
      `refusing to serve the control surface on ${host} without TLS; pass --tls-cert FILE --tls-key FILE, or --insecure-remote if a TLS proxy sits in front`,
    );
  }
}

/** The headless cockpit: static files over HTTP(S) and the contract over an authenticated WebSocket. */
export class CockpitServer {
  private server: Server | null = null;
  private transport: WebSocketTransport | null = null;

  constructor(private readonly options: CockpitServerOptions) {
    assertBindAllowed(options.host, Boolean(options.tls), Boolean(options.insecureRemote));
  }

  async start(): Promise<CockpitAddress> {
    const { options } = this;
    // Listen first: with --port 0 the Host allow-list needs the port the OS picked.
    let handler: ReturnType<typeof createHttpHandler> | null = null;
    const onRequest = (req: Parameters<ReturnType<typeof createHttpHandler>>[0], res: Parameters<ReturnType<typeof createHttpHandler>>[1]) => {
      if (!handler) {
        res.writeHead(503).end();
        return;
      }
      void handler(req, res);
    };
    const server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest) : createHttpServer(onRequest);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EADDRINUSE') {
          reject(new SilasError(ErrorCode.PortInUse, `port ${options.port} on ${options.host} is already in use; stop what uses it, or pass --port N (or --port 0 to pick a free one)`));
        } else if (error.code === 'EACCES') {
          reject(new SilasError(ErrorCode.Permission, `not allowed to listen on ${options.host}:${options.port}; choose a port above 1024 with --port`));
        } else {
          reject(new SilasError(ErrorCode.Config, `cannot listen on ${options.host}:${options.port}: ${error.message}`));
        }
      });
      server.listen(options.port, options.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const extraHosts = isLoopbackHost(options.host) ? options.allowedHosts ?? [] : [...(options.allowedHosts ?? []), ...(options.host === '0.0.0.0' || options.host === '::' ? [] : [options.host])];
    const originPolicy = new OriginPolicy(port, { extraHosts, tls: Boolean(options.tls) });
    const scheme = options.tls ? 'https' : 'http';
    const displayHost = isLoopbackHost(options.host) || options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
    const wsUrl = `${options.tls ? 'wss' : 'ws'}://${displayHost}:${port}${WS_PATH}`;
    handler = createHttpHandler({ originPolicy, staticDir: options.staticDir, csp: cockpitCsp(`${options.tls ? 'wss' : 'ws'}://${displayHost}:${port}`) });
    this.transport = new WebSocketTransport({
      token: options.token,
      router: options.router,
      events: options.events,
      originPolicy,
      messagesPerMinute: options.messagesPerMinute,
      serverVersion: options.serverVersion,
      onSecurityEvent: options.onSecurityEvent,
      authTimeoutMs: options.authTimeoutMs,
    });
    const transport = this.transport;
    server.on('upgrade', (req, socket, head) => transport.handleUpgrade(req, socket, head));
    server.on('clientError', (_error, socket) => socket.destroy());
    return { port, url: `${scheme}://${displayHost}:${port}/`, wsUrl };
  }

  stopAccepting(): void {
    this.transport?.stopAccepting();
    this.server?.close();
  }

  async close(reason: string): Promise<void> {
    this.stopAccepting();
    await this.transport?.closeAll(reason);
    this.server?.closeAllConnections?.();
    this.server = null;
  }
}
