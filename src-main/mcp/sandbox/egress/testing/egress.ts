import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { useTempDirs } from '../../../../testing/temp.js';
import { bridgeArgv, proxyEnvironment } from '../egress-bridge.js';
import { EgressProxy, type EgressDecision, type EgressProxyOptions } from '../egress-proxy.js';

/*
 * Real sockets only: the proxy listens on a UNIX socket in a temporary folder, and "the internet"
 * is a TCP echo server on 127.0.0.1. The injected resolver answers public-looking addresses for
 * the names a test lists, so the loopback echo server is reached only through the injected
 * connect, never because the proxy let a name reach loopback.
 */

export const PUBLIC_ADDRESS = '93.184.216.34';

export interface EchoServer {
  port: number;
  /** Everything any client sent, in order. */
  received: () => string;
}

export interface TestProxy {
  proxy: EgressProxy;
  socketPath: string;
  decisions: EgressDecision[];
  /** Every (address, port) the proxy asked the injected connect for. */
  connects: { host: string; port: number }[];
  /** Every name the proxy asked the injected resolver for. */
  lookups: string[];
}

const servers: Server[] = [];
const proxies: EgressProxy[] = [];
const bridges: ChildProcess[] = [];
afterEach(async () => {
  // A bridge whose test failed may still wait for its server; it forwards the signal to it.
  for (const bridge of bridges.splice(0)) if (bridge.exitCode === null && bridge.signalCode === null) bridge.kill('SIGTERM');
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

export const tempDir = useTempDirs('silas-egress-');

/** Echoes every connection on `host`, after `greeting` (a server that speaks first, as databases do). */
export async function startEcho(host = '127.0.0.1', greeting = ''): Promise<EchoServer> {
  let received = '';
  const server = createServer((socket) => {
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => socket.destroy());
    if (greeting !== '') socket.write(greeting);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  servers.push(server);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('echo server has no port');
  return { port: address.port, received: () => received };
}

/**
 * A proxy whose names resolve through `dns` (default: every name → PUBLIC_ADDRESS) and whose
 * connections all land on `echo`; with `direct`, on the address and port the proxy asked for.
 */
export async function startProxy(
  echo: EchoServer,
  allow: readonly string[],
  options: Partial<EgressProxyOptions> & { dns?: Record<string, string[]>; socketPath?: string; direct?: boolean } = {},
): Promise<TestProxy> {
  const { dns, direct, ...proxyOptions } = options;
  const decisions: EgressDecision[] = [];
  const connects: { host: string; port: number }[] = [];
  const lookups: string[] = [];
  const socketPath = options.socketPath ?? join(tempDir(), 'egress.sock');
  const proxy = await EgressProxy.start({
    socketPath,
    allow,
    onDecision: (decision) => decisions.push(decision),
    resolve: async (host) => {
      lookups.push(host);
      return dns?.[host] ?? [PUBLIC_ADDRESS];
    },
    connect: (host, port) => {
      connects.push({ host, port });
      return direct ? connect({ host, port, allowHalfOpen: true }) : connect(echo.port, '127.0.0.1');
    },
    ...proxyOptions,
  });
  proxies.push(proxy);
  return { proxy, socketPath, decisions, connects, lookups };
}

/** A client on the proxy's socket that keeps everything it receives. */
export class Client {
  private data = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  readonly closed: Promise<void>;
  private isClosed = false;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.wake();
    });
    // A refused client may see a reset after the answer; what it received is what counts.
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        this.wake();
        resolve();
      }),
    );
  }

  static open(socketPath: string): Promise<Client> {
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath);
      socket.once('connect', () => resolve(new Client(socket)));
      socket.once('error', reject);
    });
  }

  text(): string {
    return this.data.toString('latin1');
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves with everything received once it contains `expected`; rejects if the connection closes first. */
  async until(expected: string): Promise<string> {
    while (!this.text().includes(expected)) {
      if (this.isClosed) throw new Error(`connection closed before ${JSON.stringify(expected)}; received ${JSON.stringify(this.text())}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.text();
  }

  /** The tunnel's opening answer, or the whole refusal once the proxy closes the connection. */
  async answer(): Promise<string> {
    await Promise.race([this.closed, this.until('\r\n\r\n').then(() => (this.text().startsWith('HTTP/1.1 200 ') ? undefined : this.closed))]);
    return this.text();
  }

  /** Everything received until the proxy closes the connection. */
  async rest(): Promise<string> {
    await this.closed;
    return this.text();
  }
}

/** Sends `request` as one write and returns the whole answer (the proxy closes after refusing). */
export async function exchange(socketPath: string, request: string | Buffer): Promise<string> {
  const client = await Client.open(socketPath);
  client.socket.write(request);
  return client.rest();
}

export function connectRequest(target: string, extraHeaders = ''): string {
  return `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${extraHeaders}\r\n`;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface BridgeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bridge as the sandbox does (`node -e SOURCE -- …`) around `command`, but in this
 * machine's network namespace, so `port` and `loopbackPorts` must be free here. `onStderr` sees
 * the stderr as it grows.
 */
export function runBridge(
  socketPath: string,
  port: number,
  command: string[],
  onStderr?: (text: string, pid: number) => void,
  loopbackPorts?: readonly number[],
): Promise<BridgeRun> {
  const [node, ...args] = bridgeArgv(process.execPath, socketPath, port, command, loopbackPorts);
  const bridge = spawn(node!, args, { env: { ...process.env, ...proxyEnvironment(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  bridges.push(bridge);
  let stdout = '';
  let stderr = '';
  bridge.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  bridge.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    onStderr?.(stderr, bridge.pid!);
  });
  return new Promise((resolve) => bridge.on('close', (code) => resolve({ code, stdout, stderr })));
}

export const nodeScript = (script: string): string[] => [process.execPath, '-e', script];
