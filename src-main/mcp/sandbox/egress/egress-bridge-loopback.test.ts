import { spawnSync } from 'node:child_process';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridgeArgv, EGRESS_BRIDGE_SOURCE } from './egress-bridge.js';
import { freePort, nodeScript, runBridge, startEcho, startProxy, tempDir } from './testing/egress.js';

/*
 * The bridge's loopback ports. Outside a namespace "127.0.0.1:P inside the sandbox" and "the
 * host's 127.0.0.1:P" are the same place, so P is a free port the bridge listens on, and the
 * proxy's injected connect takes the tunnel for 127.0.0.1:P to a separate echo server instead.
 */

// The server inside: connects to 127.0.0.1:PORT, sends "early" at once, says so on stderr, and
// prints what came back when the connection closes (it closes it itself once EXPECTED arrived).
const LOOPBACK_CLIENT = String.raw`
const net = require('node:net');
const [port, expected] = process.argv.slice(1);
const socket = net.connect(Number(port), '127.0.0.1');
let received = '';
socket.on('connect', () => {
  socket.write('early');
  process.stderr.write('sent\n');
});
socket.on('data', (chunk) => {
  received += chunk;
  if (received === expected) socket.destroy();
});
socket.on('error', () => undefined);
socket.on('close', () => process.stdout.write(received));
`;

const client = (port: number, expected: string) => nodeScript(LOOPBACK_CLIENT).concat('--', String(port), expected);

describe('the egress bridge’s loopback ports', () => {
  it('tunnels a listed port through the proxy, with the bytes the server sent before the proxy answered', async () => {
    const target = await startEcho('127.0.0.1', 'greeting:');
    const inside = await freePort();
    // The proxy cannot answer 200 before the server has sent its first bytes: the injected connect
    // only finds its address once the server said on stderr that they are sent.
    let sent!: () => void;
    const gate = new Promise<void>((resolve) => (sent = resolve));
    const asked: { host: string; port: number }[] = [];
    const t = await startProxy(target, [], {
      loopbackPorts: [inside],
      connect: (host, port): Socket => {
        asked.push({ host, port });
        const lookup = (_name: string, _options: unknown, callback: (error: null, address: string, family: number) => void) => void gate.then(() => callback(null, '127.0.0.1', 4));
        return createConnection({ host: 'gate.test', port: target.port, lookup, autoSelectFamily: false, allowHalfOpen: true });
      },
    });
    const run = await runBridge(t.socketPath, await freePort(), client(inside, 'greeting:early'), (stderr) => (stderr.includes('sent') ? sent() : undefined), [inside]);
    expect(run).toEqual({ code: 0, stdout: 'greeting:early', stderr: 'sent\n' });
    expect(target.received()).toBe('early');
    expect(asked).toEqual([{ host: '127.0.0.1', port: inside }]);
    expect(t.decisions).toEqual([{ allowed: true, host: '127.0.0.1', port: inside, reason: expect.any(String) }]);
  });

  it('closes the connection inside when the proxy refuses the port', async () => {
    const listed = await freePort();
    const refused = await freePort();
    const t = await startProxy(await startEcho(), [], { loopbackPorts: [listed] });
    const run = await runBridge(t.socketPath, await freePort(), client(refused, 'never'), undefined, [listed, refused]);
    expect(run).toEqual({ code: 0, stdout: '', stderr: 'sent\n' });
    expect(t.decisions).toEqual([{ allowed: false, host: '127.0.0.1', port: refused, reason: expect.any(String), count: 1 }]);
    expect(t.connects).toEqual([]);
  });

  it('exits 1 without starting the server when a loopback port cannot be listened on', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = await runBridge(join(tempDir(), 'absent.sock'), await freePort(), nodeScript("process.stdout.write('started')"), undefined, [port]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(new RegExp(`^silas-egress-bridge: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('puts the loopback ports on its command line, and refuses one that is the proxy port', () => {
    const base = ['/usr/bin/node', '-e', EGRESS_BRIDGE_SOURCE, '--', '/run/egress.sock', '3128'];
    expect(bridgeArgv('/usr/bin/node', '/run/egress.sock', 3128, ['server'], [5432, 11434, 5432])).toEqual([...base, '--loopback-ports=5432,11434', 'server']);
    expect(bridgeArgv('/usr/bin/node', '/run/egress.sock', 3128, ['server'], [])).toEqual([...base, 'server']);
    expect(() => bridgeArgv('/usr/bin/node', '/run/egress.sock', 3128, ['server'], [5432, 3128])).toThrow('loopback port 3128 collides with the proxy port 3128');
    expect(() => bridgeArgv('/usr/bin/node', '/run/egress.sock', 3128, ['server'], [70_000])).toThrow(/loopback port 70000 out of range/);
    expect(() => bridgeArgv('/usr/bin/node', '/run/egress.sock', 3128, ['--loopback-ports=1'])).toThrow(/may not start with --loopback-ports=/);
  });

  it.each([
    [['--loopback-ports=4000', 'server'], /loopback port 4000 is also the proxy port 4000/],
    [['--loopback-ports=5432,0', 'server'], /usage:/],
    [['--loopback-ports=', 'server'], /usage:/],
    [['--loopback-ports=5432'], /usage:/],
  ])('refuses the command line %j before listening or starting anything', (rest, message) => {
    const run = spawnSync(process.execPath, ['-e', EGRESS_BRIDGE_SOURCE, '--', join(tempDir(), 'absent.sock'), '4000', ...rest], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});
