/*
 * The inside half of a sandboxed server's network (issue 12). The server's namespace has no route
 * out, and most HTTP clients only know a TCP proxy (`HTTPS_PROXY=http://127.0.0.1:3128`), not a
 * UNIX socket. So the sandbox runs this small program first: it listens on that loopback port
 * inside the namespace, forwards every connection unchanged to the egress proxy's socket (which
 * decides everything; the bridge decides nothing), and then runs the real server as its child.
 *
 * It is plain CommonJS passed with `node -e`, so nothing has to be mounted or compiled for it.
 * It never writes to stdout: that is the server's JSON-RPC channel, inherited by the child. It
 * exits with the child's status, so the proxy sees the server's exit as if it ran directly.
 */

export const DEFAULT_BRIDGE_PORT = 3128;

export const EGRESS_BRIDGE_SOURCE = String.raw`'use strict';
const net = require('node:net');
const childProcess = require('node:child_process');
const os = require('node:os');

const [socketPath, portText, command, ...args] = process.argv.slice(1);
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'];
let child = null;
let finished = false;

function finish(code, message) {
  if (finished) return;
  finished = true;
  if (message) process.stderr.write('silas-egress-bridge: ' + message + '\n');
  process.exit(code);
}

function signalStatus(signal) {
  return 128 + (os.constants.signals[signal] || 0);
}

function reasonOf(error) {
  if (error.code === 'ENOENT') return 'not found';
  if (error.code === 'EACCES') return 'permission denied';
  return error.message;
}

if (!socketPath || !command || !/^[0-9]{1,5}$/.test(portText || '') || Number(portText) < 1 || Number(portText) > 65535) {
  finish(2, 'usage: node -e SOURCE -- SOCKET_PATH PORT COMMAND [ARGS...]');
}

for (const signal of FORWARDED) {
  process.on(signal, () => {
    if (child === null || child.pid === undefined) finish(signalStatus(signal));
    else child.kill(signal);
  });
}

function relay(client) {
  const upstream = net.createConnection({ path: socketPath, allowHalfOpen: true });
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const end of [client, upstream]) {
    end.on('error', close);
    end.on('close', close);
  }
  client.pipe(upstream);
  upstream.pipe(client);
}

function start() {
  try {
    child = childProcess.spawn(command, args, { stdio: 'inherit' });
  } catch (error) {
    finish(127, 'cannot start ' + command + ': ' + reasonOf(error));
    return;
  }
  child.on('error', (error) => {
    if (child.pid === undefined) finish(127, 'cannot start ' + command + ': ' + reasonOf(error));
  });
  child.on('exit', (code, signal) => finish(code === null ? signalStatus(signal) : code));
}

const server = net.createServer({ allowHalfOpen: true }, relay);
server.on('error', (error) => finish(1, 'cannot listen on 127.0.0.1:' + portText + ': ' + error.message));
server.listen(Number(portText), '127.0.0.1', start);
`;

/** The sandboxed command line: the bridge first, then the server's own `argv` as its child. */
export function bridgeArgv(nodePath: string, socketPath: string, port: number, argv: readonly string[]): string[] {
  if (argv.length === 0) throw new Error('egress bridge: no command to run');
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`egress bridge: port ${port} out of range`);
  return [nodePath, '-e', EGRESS_BRIDGE_SOURCE, '--', socketPath, String(port), ...argv];
}

/**
 * What the server's HTTP clients need to use the bridge. NO_PROXY is emptied so an inherited
 * exception list cannot send a request around the bridge, where there is no route anyway and
 * the failure would be harder to understand.
 */
export function proxyEnvironment(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return { HTTPS_PROXY: url, https_proxy: url, HTTP_PROXY: url, http_proxy: url, NO_PROXY: '', no_proxy: '' };
}
