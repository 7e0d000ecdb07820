import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { report } from '../../testing/bench.js';
import { SILAS_BIN } from '../../testing/cli.js';
import { childEnv, createTestHome, SERVERS, writePolicy } from '../testing/proxy-harness.js';
import { EgressProxy } from './egress/egress-proxy.js';

/*
 * What the sandbox costs (docs/mcp-sandbox.md): a server's start through `silas proxy` with and
 * without it (beside the server started directly, the floor), tools/call latency through a
 * sandboxed server against the same server unsandboxed (the sandbox should add nothing per call:
 * the kernel's namespaces are not on the pipe's path), and a connection through the egress proxy
 * against a direct one to the same local listener.
 */

const STARTS = 7;
const CALLS = 2000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function started(args: string[]): Promise<{ client: Client; ms: number }> {
  const begin = performance.now();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env: childEnv(), stderr: 'ignore' }));
  return { client, ms: performance.now() - begin };
}

async function startMs(args: string[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i += 1) {
    const { client, ms } = await started(args);
    times.push(ms);
    await client.close();
  }
  return median(times);
}

async function callLatencies(args: string[], bytes: number, calls: number): Promise<number[]> {
  const { client } = await started(args);
  const times: number[] = [];
  const filler = 'x'.repeat(bytes);
  const warm = Math.ceil(calls / 10);
  for (let i = 0; i < calls + warm; i += 1) {
    const begin = performance.now();
    await client.callTool({ name: 'echo', arguments: { message: `message ${i} ${filler}` } });
    if (i >= warm) times.push((performance.now() - begin) * 1000);
  }
  await client.close();
  return times;
}

/** Open, send one byte, read it back, close: a connection's whole setup as a client sees it. */
function roundTrip(open: () => Socket, viaProxy: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const begin = performance.now();
    const socket = open();
    let established = !viaProxy;
    socket.once('error', reject);
    socket.on('connect', () => socket.write(viaProxy ? 'CONNECT api.bench.test:443 HTTP/1.1\r\nHost: api.bench.test:443\r\n\r\n' : 'x'));
    socket.on('data', (chunk: Buffer) => {
      if (!established) {
        established = chunk.toString('latin1').startsWith('HTTP/1.1 200');
        if (!established) return reject(new Error(chunk.toString('latin1')));
        return socket.write('x');
      }
      socket.destroy();
      resolve((performance.now() - begin) * 1000);
    });
  });
}

/** Sends `mb` MiB through an echo and reads them back: bytes once the tunnel is open. */
function transferMs(open: () => Socket, viaProxy: boolean, mb: number): Promise<number> {
  const total = mb * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 7);
  return new Promise((resolve, reject) => {
    const socket = open();
    let established = !viaProxy;
    let begin = 0;
    let received = 0;
    const send = () => {
      begin = performance.now();
      for (let sent = 0; sent < total; sent += chunk.length) socket.write(chunk);
    };
    socket.once('error', reject);
    socket.on('connect', () => (viaProxy ? socket.write('CONNECT api.bench.test:443 HTTP/1.1\r\nHost: api.bench.test:443\r\n\r\n') : send()));
    socket.on('data', (data: Buffer) => {
      if (!established) {
        established = data.toString('latin1').startsWith('HTTP/1.1 200');
        return established ? send() : reject(new Error(data.toString('latin1')));
      }
      received += data.length;
      if (received >= total) {
        socket.destroy();
        resolve(performance.now() - begin);
      }
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'silas-bench-sandbox-'));
try {
  const home = createTestHome(join(dir, 'home'));
  const policy = writePolicy(dir, '  allowed_tools: [echo]\n');
  const base = [SILAS_BIN, 'proxy', '--policy', policy, '--home', home.home, '--name', 'bench'];
  const sandboxed = [...base, '--', process.execPath, SERVERS.fileTools];
  const unsandboxed = [...base, '--no-sandbox', '--', process.execPath, SERVERS.fileTools];

  const direct = await startMs([SERVERS.fileTools]);
  const plain = await startMs(unsandboxed);
  const boxed = await startMs(sandboxed);
  report('mcp.sandbox.server_start', 'ms', boxed, { unsandboxed_ms: plain, added_ms: boxed - plain, floor_server_alone_ms: direct, runs: STARTS });

  // The same calls through the same proxy with and without the sandbox, from a short message to
  // 1 MB of arguments: the sandbox should cost nothing per call and nothing per byte.
  for (const [label, bytes, calls] of [['', 0, CALLS], ['_64kb', 64 * 1024, 300], ['_1mb', 1024 * 1024, 100]] as const) {
    const plainCalls = await callLatencies(unsandboxed, bytes, calls);
    const boxedCalls = await callLatencies(sandboxed, bytes, calls);
    for (const p of [50, 99]) {
      const withSandbox = percentile(boxedCalls, p);
      const without = percentile(plainCalls, p);
      report(`mcp.sandbox.call${label}_p${p}`, 'us', withSandbox, { unsandboxed_us: without, ratio_to_unsandboxed: withSandbox / without, argument_bytes: bytes, calls });
    }
  }

  // The listed host reaches a local echo listener (the bench has no network): resolution is
  // injected as a public address, so the proxy does all its checks, and connects locally.
  // No Nagle on either side, as the egress proxy's own sockets: otherwise loopback's delayed ACK (~40 ms) is the figure.
  const echo = createServer((socket) => socket.setNoDelay(true).pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const port = (echo.address() as { port: number }).port;
  const egress = await EgressProxy.start({
    socketPath: join(dir, 'egress.sock'),
    allow: ['api.bench.test'],
    onDecision: () => undefined,
    resolve: () => Promise.resolve(['93.184.216.34']),
    connect: () => connect(port, '127.0.0.1').setNoDelay(true),
  });
  const viaEgress: number[] = [];
  const straight: number[] = [];
  for (let i = 0; i < 500; i += 1) {
    viaEgress.push(await roundTrip(() => connect(egress.address), true));
    straight.push(await roundTrip(() => connect(port, '127.0.0.1'), false));
  }
  // Bytes once the tunnel is open, 1 MiB and 16 MiB, each the median of 5 alternating runs after one warm-up of each.
  for (const mb of [1, 16]) {
    const tunnelledRuns: number[] = [];
    const directRuns: number[] = [];
    for (let run = 0; run < 6; run += 1) {
      const t = await transferMs(() => connect(egress.address).setNoDelay(true), true, mb);
      const d = await transferMs(() => connect(port, '127.0.0.1').setNoDelay(true), false, mb);
      if (run === 0) continue;
      tunnelledRuns.push(t);
      directRuns.push(d);
    }
    const tunnelled = median(tunnelledRuns);
    const direct = median(directRuns);
    report(`mcp.sandbox.egress_transfer_${mb}mb`, 'ms', tunnelled, { floor_direct_ms: direct, ratio_to_direct: tunnelled / direct, bytes: mb * 1024 * 1024 });
  }
  report('mcp.sandbox.egress_connect', 'us', median(viaEgress.slice(50)), { floor_direct_connect_us: median(straight.slice(50)), added_us: median(viaEgress.slice(50)) - median(straight.slice(50)), connections: 450 });
  await egress.close();
  echo.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
