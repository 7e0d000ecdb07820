import { constants } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridgeArgv, DEFAULT_BRIDGE_PORT, EGRESS_BRIDGE_SOURCE, proxyEnvironment } from './egress-bridge.js';
import { freePort, nodeScript as node, runBridge, startEcho, startProxy, tempDir } from './testing/egress.js';

/*
 * The bridge runs here as it runs in the sandbox (`node -e SOURCE -- …`), but in this machine's
 * network namespace, so it listens on a free port instead of 3128. The proxy it forwards to is a
 * real EgressProxy on a UNIX socket.
 */

// Reaches api.example.test through HTTPS_PROXY (the bridge), sends "ping" right after the
// CONNECT header and prints everything that comes back once the echo has arrived.
const TUNNEL_CLIENT = String.raw`
const net = require('node:net');
const socket = net.connect(Number(new URL(process.env.HTTPS_PROXY).port), '127.0.0.1');
let received = '';
socket.on('connect', () => socket.write('CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\nping'));
socket.on('data', (chunk) => {
  received += chunk;
  if (received.includes('\r\n\r\n') && received.endsWith('ping')) {
    process.stdout.write(received);
    socket.destroy();
  }
});
socket.on('close', () => process.exit(received.endsWith('ping') ? 0 : 3));
socket.on('error', (error) => process.stderr.write(String(error)));
`;

describe('the egress bridge', () => {
  it('forwards the child’s connections byte for byte to the egress proxy, and writes nothing of its own to stdout', async () => {
    const echo = await startEcho();
    const t = await startProxy(echo, ['api.example.test']);
    const run = await runBridge(t.socketPath, await freePort(), node(TUNNEL_CLIENT));
    expect(run).toEqual({ code: 0, stdout: 'HTTP/1.1 200 Connection established\r\n\r\nping', stderr: '' });
    expect(echo.received()).toBe('ping');
    expect(t.decisions).toEqual([expect.objectContaining({ allowed: true, host: 'api.example.test', port: 443 })]);
    expect(t.proxy.stats.allowed).toBe(1);
  });

  it('passes the proxy’s refusal through unchanged', async () => {
    const t = await startProxy(await startEcho(), ['other.example.test']);
    // Prints whatever the proxy answered once it closes the connection.
    const script = TUNNEL_CLIENT.replace("socket.on('close', () => process.exit(received.endsWith('ping') ? 0 : 3));", "socket.on('close', () => process.stdout.write(received));");
    expect(script).not.toBe(TUNNEL_CLIENT);
    const run = await runBridge(t.socketPath, await freePort(), node(script));
    expect(run.stdout).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*api\.example\.test/);
    expect(t.decisions).toEqual([expect.objectContaining({ allowed: false, host: 'api.example.test' })]);
  });

  it('exits with the child’s exit code', async () => {
    const run = await runBridge(join(tempDir(), 'absent.sock'), await freePort(), node('process.exit(7)'));
    expect(run).toEqual({ code: 7, stdout: '', stderr: '' });
  });

  it('exits with 128 + the signal number when the child is killed', async () => {
    const run = await runBridge(join(tempDir(), 'absent.sock'), await freePort(), node("process.kill(process.pid, 'SIGKILL')"));
    expect(run.code).toBe(128 + constants.signals.SIGKILL);
    expect(run.stdout).toBe('');
  });

  it('forwards SIGTERM to the child', async () => {
    const child = "process.on('SIGTERM', () => process.exit(5)); process.stderr.write('ready\\n'); setInterval(() => undefined, 1000);";
    let sent = false;
    const run = await runBridge(join(tempDir(), 'absent.sock'), await freePort(), node(child), (stderr, pid) => {
      if (!sent && stderr.includes('ready')) {
        sent = true;
        process.kill(pid, 'SIGTERM');
      }
    });
    expect(run).toEqual({ code: 5, stdout: '', stderr: 'ready\n' });
  });

  it('exits 127 with a message when the command cannot be started', async () => {
    const missing = join(tempDir(), 'no-such-server');
    const run = await runBridge(join(tempDir(), 'absent.sock'), await freePort(), [missing, '--stdio']);
    expect(run).toEqual({ code: 127, stdout: '', stderr: `silas-egress-bridge: cannot start ${missing}: not found\n` });
  });

  it('builds its command line and the proxy environment', () => {
    expect(bridgeArgv('/usr/bin/node', '/run/egress.sock', DEFAULT_BRIDGE_PORT, ['server', '--flag'])).toEqual([
      '/usr/bin/node',
      '-e',
      EGRESS_BRIDGE_SOURCE,
      '--',
      '/run/egress.sock',
      '3128',
      'server',
      '--flag',
    ]);
    expect(() => bridgeArgv('/usr/bin/node', '/run/egress.sock', 3128, [])).toThrow(/no command/);
    expect(proxyEnvironment(3128)).toEqual({
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      https_proxy: 'http://127.0.0.1:3128',
      HTTP_PROXY: 'http://127.0.0.1:3128',
      http_proxy: 'http://127.0.0.1:3128',
      NO_PROXY: '',
      no_proxy: '',
    });
  });
});
