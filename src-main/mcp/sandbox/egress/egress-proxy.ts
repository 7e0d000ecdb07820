import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { lookup } from 'node:dns/promises';
import { connect as netConnect, createConnection, createServer, type Server, type Socket } from 'node:net';
import { nonPublicRange } from './address-ranges.js';
import { ESTABLISHED, httpResponse, readConnectHead } from './connect-head.js';
import { findPattern, parseConnectTarget, parseHostPatterns, type Host, type HostPattern } from '../../../aip/policy/host-patterns.js';
import { authority, LOOPBACK_POLICY_KEY, loopbackAddress, loopbackRefusal, parseLoopbackPorts } from './loopback.js';
import { RefusalWindows } from './refusal-window.js';

/*
 * The only way out of a governed server's sandbox (DESIGN §5 invariant 10; docs/mcp-sandbox.md
 * "Network: the egress proxy"). The server has its own network namespace; `silas proxy` runs this
 * on the host behind a UNIX socket bind-mounted into the sandbox, and the in-sandbox bridge
 * (egress-bridge.ts) turns the socket into an ordinary HTTPS_PROXY. Every CONNECT is decided here,
 * reported once to `onDecision` (which audits it) before anything is opened, and a name is reached
 * only at the address that was checked, so a DNS answer cannot change between the check and the
 * connection.
 */

export interface EgressDecision {
  allowed: boolean;
  /** The normalised host, or a printable form of a target that could not be parsed. */
  host: string;
  /** 0 when the target could not be parsed. */
  port: number;
  reason: string;
  /**
   * Refusals this decision stands for (refusal-window.ts): 1 for a host's first, recorded before
   * it is answered; N for the further refusals of a window, recorded when the window closes.
   */
  count?: number;
  /** The window's start (ISO) and length, on a window's entry. */
  windowStart?: string;
  windowMs?: number;
}

export interface EgressProxyOptions {
  socketPath: string;
  /** `x-silas-sandbox.network.hosts`: `example.com`, `*.example.com`, either with `:port`. */
  allow: readonly string[];
  /**
   * Ports of the host's loopback the server may reach as `127.0.0.1:P`, `localhost:P` or
   * `[::1]:P` (loopback.ts). Reported with the host as `127.0.0.1` or `::1`.
   */
  loopbackPorts?: readonly number[];
  /** Called once for every CONNECT, before its effect. If it throws, nothing is opened. */
  onDecision: (decision: EgressDecision) => void;
  resolve?: (host: string) => Promise<string[]>;
  connect?: (host: string, port: number) => Socket;
  maxHeaderBytes?: number;
  idleTimeoutMs?: number;
  /** Simultaneous client connections; more are refused by the kernel's accept path. */
  maxConnections?: number;
  /** Refusals of one host after its first are counted over this window (refusal-window.ts). */
  refusalWindowMs?: number;
}

export interface EgressStats {
  /** CONNECTs let through. */
  allowed: number;
  /** CONNECTs refused (policy, address, resolution or audit failure). */
  denied: number;
  /** Requests that were not a well-formed CONNECT (400, 405, 431). */
  rejected: number;
  openTunnels: number;
}

/** `host`: what the decision reports, when not the normalised name (a loopback form reports its address). */
type Verdict = { ok: true; address: string; reason: string; host?: string } | { ok: false; status: 403 | 502; reason: string; body: string; host?: string };

const DEFAULT_MAX_HEADER_BYTES = 8 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_MAX_CONNECTIONS = 256;
const POLICY_KEY = 'x-silas-sandbox.network.hosts';

async function lookupAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

function connectTcp(host: string, port: number): Socket {
  return createConnection({ host, port, allowHalfOpen: true, noDelay: true });
}

/**
 * The socket's folder is the boundary: one only this user can enter (a mkdtemp folder), so no
 * other user reaches the socket in the moment between listen() and its chmod to 0600.
 */
function privateFolder(socketPath: string): void {
  const folder = dirname(socketPath);
  const stat = statSync(folder);
  if (stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0) {
    throw new Error(`egress proxy: ${folder} is open to other users (mode ${(stat.mode & 0o777).toString(8)}); its socket needs a folder only this user can enter (mode 0700)`);
  }
}

/** A socket file left by a proxy that is gone may be replaced; anything else is refused. */
async function clearStaleSocket(path: string): Promise<void> {
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const refuse = () => new Error(`egress proxy: ${path} exists and is not a stale socket of this user; not replacing it`);
  if (!stat.isSocket() || stat.uid !== process.getuid?.()) throw refuse();
  const refused = await new Promise<boolean>((resolve) => {
    const probe = netConnect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
  if (!refused) throw refuse();
  unlinkSync(path);
}

function printable(text: string): string {
  return text.replace(/[^\x21-\x7e]/g, '?').slice(0, 256);
}

function end(socket: Socket, status: number, body: string): void {
  if (socket.destroyed) return;
  // Drain what the client still sends, so closing does not turn the answer into a reset.
  socket.resume();
  socket.end(httpResponse(status, body), () => socket.destroy());
}

export class EgressProxy {
  private readonly sockets = new Set<Socket>();
  private readonly counts = { allowed: 0, denied: 0, rejected: 0, openTunnels: 0 };
  private readonly resolveHost: (host: string) => Promise<string[]>;
  private readonly connectTo: (host: string, port: number) => Socket;
  private closed = false;
  private inode = -1;
  private readonly refusals: RefusalWindows;

  private constructor(
    private readonly server: Server,
    private readonly options: EgressProxyOptions,
    private readonly patterns: HostPattern[],
    private readonly loopbackPorts: ReadonlySet<number>,
  ) {
    this.resolveHost = options.resolve ?? lookupAll;
    this.connectTo = options.connect ?? connectTcp;
    this.refusals = new RefusalWindows({ record: (refusal) => options.onDecision({ allowed: false, ...refusal }), ...(options.refusalWindowMs ? { windowMs: options.refusalWindowMs } : {}) });
  }

  static async start(options: EgressProxyOptions): Promise<EgressProxy> {
    const patterns = parseHostPatterns(options.allow);
    const loopbackPorts = parseLoopbackPorts(options.loopbackPorts, 'egress proxy');
    privateFolder(options.socketPath);
    await clearStaleSocket(options.socketPath);
    const server = createServer({ allowHalfOpen: true });
    server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const proxy = new EgressProxy(server, options, patterns, loopbackPorts);
    // Whatever a hostile client provokes ends its own connection, never the proxy.
    server.on('connection', (socket) => proxy.handle(socket).catch(() => socket.destroy()));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    try {
      chmodSync(options.socketPath, 0o600);
      proxy.inode = lstatSync(options.socketPath).ino;
    } catch (error) {
      await proxy.close();
      throw error;
    }
    return proxy;
  }

  get address(): string {
    return this.options.socketPath;
  }

  get stats(): EgressStats {
    return { ...this.counts };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    // Every refusal counted in an open window reaches the ledger before the proxy reports it stopped.
    this.refusals.flush();
    await closing;
    try {
      if (lstatSync(this.options.socketPath).ino === this.inode) unlinkSync(this.options.socketPath);
    } catch {
      // Already gone (the server removes its own socket file on close).
    }
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private async handle(socket: Socket): Promise<void> {
    if (this.closed) return void socket.destroy();
    this.track(socket);
    socket.setTimeout(this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => socket.destroy());
    const head = await readConnectHead(socket, this.options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES);
    if (head === null) return;
    if (head.kind === 'reject') {
      this.counts.rejected++;
      return end(socket, head.status, head.message);
    }
    const target = parseConnectTarget(head.target);
    if (target === null) {
      this.counts.denied++;
      this.report({ allowed: false, host: printable(head.target), port: 0, reason: 'malformed CONNECT target' });
      return end(socket, 400, 'silas egress proxy: malformed CONNECT target; expected host:port.');
    }
    const { host, port } = target;
    const verdict = await this.judge(host, port);
    // Reported even if the client has gone meanwhile: the attempt happened.
    const recorded = this.report({ allowed: verdict.ok, host: verdict.host ?? host.name, port, reason: verdict.reason });
    if (!recorded) {
      this.counts.denied++;
      return end(socket, 500, 'silas egress proxy: the decision could not be recorded, so nothing was opened.');
    }
    if (!verdict.ok) {
      this.counts.denied++;
      return end(socket, verdict.status, verdict.body);
    }
    this.counts.allowed++;
    this.tunnel(socket, verdict.address, port, head.rest);
  }

  private report(decision: EgressDecision): boolean {
    try {
      // A refusal is recorded at once when it is its host's first in a window, else counted.
      if (!decision.allowed && !this.closed) this.refusals.refuse(decision);
      else this.options.onDecision(decision.allowed ? decision : { ...decision, count: 1 });
      return true;
    } catch {
      return false;
    }
  }

  private async judge(host: Host, port: number): Promise<Verdict> {
    const loopback = loopbackAddress(host);
    if (loopback !== null) return this.judgeLoopback(host, loopback, port);
    const where = `${host.name}:${port}`;
    const pattern = findPattern(this.patterns, host, port);
    if (pattern === null) {
      const entry = port === 443 || port === 80 ? host.name : where;
      const body = `silas egress proxy: ${where} is not allowed; to allow it, add "${entry}" to ${POLICY_KEY} in this server's policy.`;
      return { ok: false, status: 403, reason: `not in ${POLICY_KEY}`, body };
    }
    const allowedBy = `allowed by "${pattern.source}"`;
    // A listed IP literal is the person's explicit choice, whatever range it is in.
    if (host.ip) return { ok: true, address: host.name.replace(/^\[|\]$/g, ''), reason: allowedBy };
    let addresses: string[];
    try {
      addresses = await this.resolveHost(host.name);
    } catch (error) {
      const reason = `cannot resolve ${host.name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      return { ok: false, status: 502, reason, body: `silas egress proxy: ${reason}.` };
    }
    if (addresses.length === 0) {
      const reason = `${host.name} resolves to no address`;
      return { ok: false, status: 502, reason, body: `silas egress proxy: ${reason}.` };
    }
    for (const address of addresses) {
      const range = nonPublicRange(address);
      if (range === null) continue;
      const reason = `${host.name} resolves to ${printable(address)} (${range}); a name may only reach public addresses`;
      const body = `silas egress proxy: ${where} refused: ${reason}; list the IP literal in ${POLICY_KEY} to allow that address.`;
      return { ok: false, status: 403, reason, body };
    }
    return { ok: true, address: addresses[0]!, reason: `${allowedBy}, connecting to ${addresses[0]}` };
  }

  /** A literal loopback form: never resolved, reached at `address` itself. */
  private judgeLoopback(host: Host, address: string, port: number): Verdict {
    if (this.loopbackPorts.has(port)) return { ok: true, address, host: address, reason: `port ${port} of the host's loopback, listed in ${LOOPBACK_POLICY_KEY}` };
    // Listing the loopback literal among the hosts allowed it before loopback ports existed; it still does.
    const pattern = host.ip ? findPattern(this.patterns, host, port) : null;
    if (pattern !== null) return { ok: true, address, host: address, reason: `allowed by "${pattern.source}"` };
    return { ok: false, status: 403, host: address, reason: `port ${port} of the host's loopback is not in ${LOOPBACK_POLICY_KEY}`, body: loopbackRefusal(address, port) };
  }

  private tunnel(client: Socket, address: string, port: number, rest: Buffer): void {
    if (client.destroyed || this.closed) return void client.destroy();
    let upstream: Socket;
    try {
      upstream = this.connectTo(address, port);
    } catch {
      return end(client, 502, `silas egress proxy: cannot connect to ${authority(address, port)}.`);
    }
    this.track(upstream);
    let state: 'connecting' | 'open' | 'done' = 'connecting';
    const failed = () => {
      if (state !== 'connecting') return;
      state = 'done';
      end(client, 502, `silas egress proxy: cannot connect to ${authority(address, port)}.`);
    };
    upstream.once('error', failed);
    upstream.once('close', failed);
    upstream.setTimeout(this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => upstream.destroy());
    const established = () => {
      if (state !== 'connecting') return;
      if (client.destroyed || this.closed) {
        state = 'done';
        return void upstream.destroy();
      }
      state = 'open';
      this.counts.openTunnels++;
      const teardown = () => {
        if (state !== 'open') return;
        state = 'done';
        this.counts.openTunnels--;
        client.destroy();
        upstream.destroy();
      };
      client.once('close', teardown);
      upstream.once('close', teardown);
      client.write(ESTABLISHED);
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (upstream.connecting) upstream.once('connect', established);
    else if (!upstream.destroyed) process.nextTick(established);
  }
}
