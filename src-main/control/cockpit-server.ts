import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { EventBus } from './event-bus.js';
import { credentialsFrom, type CockpitCredentials } from './cockpit-credentials.js';
import { cockpitCsp, createHttpHandler } from './http-surface.js';
import { ilpHttpHandler, type IlpHandler } from '../ilp/transport/http-endpoint.js';
import { sameCredential } from '../ilp/transport/socket-server.js';
import { OriginPolicy, isLoopbackHost } from './origin-policy.js';
import type { ControlRouter } from './router.js';
import { WS_PATH, CockpitSocketServer, type SecurityEventSink } from './cockpit-socket-server.js';
import type { QueuePressure } from '../silas/stream/stream-limits.js';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** Where and how the cockpit listens: known before the data home is touched. */
interface CockpitBindOptions {
  host: string;
  port: number;
  staticDir: string | null;
  messagesPerMinute: number;
  serverVersion: string;
  tls?: TlsFiles;
  /** Serve plain HTTP on a non-loopback address; only with an explicit flag. */
  insecureRemote?: boolean;
  /** Extra Host names accepted for a remote bind (e.g. the server's DNS name). */
  allowedHosts?: readonly string[];
  authTimeoutMs?: number;
}

/** What the cockpit serves once the runtime exists: the contract, behind the cockpit credential. */
export interface CockpitSurface {
  /**
   * The cockpit credentials of this run (the start credential and the links `silas open` issued),
   * kept as digests; the WebSocket and secure input accept nothing else. Never written to disk.
   */
  credentials?: CockpitCredentials;
  /** Or one fixed cockpit credential (a server built without a runtime's credentials). */
  token?: string;
  router: ControlRouter;
  events: EventBus;
  onSecurityEvent?: SecurityEventSink;
  /** The built cockpit, when known only at start (it may have been built meanwhile). */
  staticDir?: string | null;
  /** §8.1 secure input (`POST /secrets/NAME`): stores one secret in the OS keyring. */
  storeSecret?: (name: string, value: string) => void;
  /** ILP over HTTP (`POST /ilp/AGENT/PATH`, docs/ilp.md "Transports"), answering callers with `ilpToken` (control.json's ask credential) or a cockpit credential. */
  ilp?: IlpHandler;
  ilpToken?: string;
  /** The Stream's queue pressure for `GET /health` (spec 002 §18.6). */
  queuePressure?: () => QueuePressure;
}


export type CockpitServerOptions = CockpitBindOptions & Partial<CockpitSurface>;

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

/**
 * The headless cockpit: static files over HTTP(S) and the contract over an authenticated
 * WebSocket. `listen()` only binds (so a busy port fails before anything is created) and
 * answers 503 until `start()` attaches the runtime's surface.
 */
export class CockpitServer {
  private server: Server | null = null;
  private transport: CockpitSocketServer | null = null;
  private address: CockpitAddress | null = null;
  private originPolicy: OriginPolicy | null = null;
  private handler: ReturnType<typeof createHttpHandler> | null = null;

  constructor(private readonly options: CockpitServerOptions) {
    assertBindAllowed(options.host, Boolean(options.tls), Boolean(options.insecureRemote));
  }

  async listen(): Promise<CockpitAddress> {
    if (this.address) return this.address;
    const { options } = this;
    const onRequest = (req: Parameters<ReturnType<typeof createHttpHandler>>[0], res: Parameters<ReturnType<typeof createHttpHandler>>[1]) => {
      if (!this.handler) {
        res.writeHead(503).end();
        return;
      }
      void this.handler(req, res);
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
    server.on('clientError', (_error, socket) => socket.destroy());
    // Until start() there is no WebSocket to offer.
    server.on('upgrade', (req, socket, head) => (this.transport ? this.transport.handleUpgrade(req, socket, head) : socket.destroy()));
    // The Host allow-list needs the port the OS picked for --port 0.
    const port = (server.address() as AddressInfo).port;
    const extraHosts = isLoopbackHost(options.host) ? options.allowedHosts ?? [] : [...(options.allowedHosts ?? []), ...(options.host === '0.0.0.0' || options.host === '::' ? [] : [options.host])];
    this.originPolicy = new OriginPolicy(port, { extraHosts, tls: Boolean(options.tls) });
    const scheme = options.tls ? 'https' : 'http';
    const displayHost = isLoopbackHost(options.host) || options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
    this.address = { port, url: `${scheme}://${displayHost}:${port}/`, wsUrl: `${options.tls ? 'wss' : 'ws'}://${displayHost}:${port}${WS_PATH}` };
    return this.address;
  }

  /** Binds if not yet bound, then serves the cockpit and the contract behind `surface`'s credential. */
  async start(surface: Partial<CockpitSurface> = {}): Promise<CockpitAddress> {
    const address = await this.listen();
    const { token, credentials: given, router, events, onSecurityEvent, staticDir, storeSecret, ilp, ilpToken, queuePressure } = { ...this.options, ...surface };
    if ((!token && !given) || !router || !events) throw new SilasError(ErrorCode.Internal, 'CockpitServer.start needs the cockpit credentials (or token), router and event bus');
    const credentials = credentialsFrom({ ...(given ? { credentials: given } : {}), ...(token ? { token } : {}) });
    const { options } = this;
    const wsOrigin = address.wsUrl.slice(0, -WS_PATH.length);
    const secretInput = storeSecret
      ? { accepts: (candidate: string) => credentials.match(candidate) !== null, store: storeSecret, onRefused: (reason: string, peer: string) => onSecurityEvent?.('control.auth_failed', { peer, reason: `secure input: ${reason}` }) }
      : undefined;
    const originPolicy = this.originPolicy!;
    const ilpEndpoint = ilp
      ? ilpHttpHandler(
          {
            accepts: (candidate) => credentials.match(candidate) !== null || (ilpToken !== undefined && sameCredential(candidate, ilpToken)),
            originAllowed: (origin) => originPolicy.originAllowed(origin),
            onRefused: (reason, peer) => onSecurityEvent?.('control.auth_failed', { peer, reason: `ILP: ${reason}` }),
          },
          ilp,
        )
      : undefined;
    const health = () => ({ connections: this.transport?.connections ?? 0, queue: queuePressure?.() ?? null });
    this.handler = createHttpHandler({ originPolicy, staticDir: staticDir ?? null, csp: cockpitCsp(wsOrigin), health, ...(secretInput ? { secretInput } : {}), ...(ilpEndpoint ? { ilp: ilpEndpoint } : {}) });
    this.transport = new CockpitSocketServer({
      credentials,
      router,
      events,
      originPolicy: this.originPolicy!,
      messagesPerMinute: options.messagesPerMinute,
      serverVersion: options.serverVersion,
      onSecurityEvent,
      authTimeoutMs: options.authTimeoutMs,
    });
    return address;
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

  /** Releases the port when the runtime could not be built after listen(). */
  async release(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections?.();
    await new Promise<void>((done) => server.close(() => done()));
  }
}
