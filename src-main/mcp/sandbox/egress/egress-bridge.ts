import { isPort } from './loopback.js';
import { EGRESS_PROXY_PORT } from '../../../../src-shared/policy/schema-sandbox.js';

/*
 * The inside half of a sandboxed server's network (docs/mcp-sandbox.md "Network: the egress
 * proxy"). The server's namespace has no route out, and most HTTP clients only know a TCP proxy
 * (`HTTPS_PROXY=http://127.0.0.1:3128`), not a UNIX socket. So the sandbox runs this small program
 * first: it listens on that loopback port inside the namespace, forwards every connection unchanged
 * to the egress proxy's socket (which decides everything; the bridge decides nothing), and then
 * runs the real server as its child.
 *
 * It is plain CommonJS passed with `node -e`, so nothing has to be mounted or compiled for it.
 * It never writes to stdout: that is the server's JSON-RPC channel, inherited by the child. It
 * exits with the child's status, so the proxy sees the server's exit as if it ran directly.
 *
 * Listed ports of the host's loopback (loopback.ts) are offered the same way, for clients that
 * know no proxy (a database driver): the bridge listens on 127.0.0.1:P inside too, and opens a
 * CONNECT 127.0.0.1:P through the proxy for every connection there. What the server sends before
 * the proxy's answer waits unread in its socket, so nothing is lost or sent ahead of the tunnel.
 */

/** The policy schema refuses this port in loopback_ports: the bridge listens there for HTTPS_PROXY. */
export const DEFAULT_BRIDGE_PORT = EGRESS_PROXY_PORT;

/** Between PORT and COMMAND when loopback ports are listed: `--loopback-ports=5432,11434`. */
const LOOPBACK_FLAG = '--loopback-ports=';

export const EGRESS_BRIDGE_SOURCE = String.raw`'use strict';
const net = require('node:net');
const childProcess = require('node:child_process');
const os = require('node:os');

const LOOPBACK_FLAG = '${LOOPBACK_FLAG}';
const [socketPath, portText, third] = process.argv.slice(1);
const loopbackTexts = (third || '').startsWith(LOOPBACK_FLAG) ? third.slice(LOOPBACK_FLAG.length).split(',') : [];
const [command, ...args] = process.argv.slice(loopbackTexts.length > 0 ? 4 : 3);
const loopbackPorts = [...new Set(loopbackTexts.map(Number))];
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'];
// A proxy's answer is a status line and a few headers; anything longer is not one.
const MAX_ANSWER_BYTES = 16384;
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

function isPortText(text) {
  return /^[0-9]{1,5}$/.test(text || '') && Number(text) >= 1 && Number(text) <= 65535;
}

if (!socketPath || !command || !isPortText(portText) || !loopbackTexts.every(isPortText)) {
  finish(2, 'usage: node -e SOURCE -- SOCKET_PATH PORT [' + LOOPBACK_FLAG + 'PORT,...] COMMAND [ARGS...]');
}
if (loopbackPorts.includes(Number(portText))) {
  finish(2, 'loopback port ' + Number(portText) + ' is also the proxy port ' + Number(portText));
}

for (const signal of FORWARDED) {
  process.on(signal, () => {
    if (child === null || child.pid === undefined) finish(signalStatus(signal));
    else child.kill(signal);
  });
}

/** A connection to the proxy for 'client'; either end going away closes both. */
function linked(client) {
  const upstream = net.createConnection({ path: socketPath, allowHalfOpen: true });
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const end of [client, upstream]) {
    end.on('error', close);
    end.on('close', close);
  }
  return { upstream, close };
}

function relay(client) {
  const { upstream } = linked(client);
  client.pipe(upstream);
  upstream.pipe(client);
}

// The client is not read until the tunnel is open: its early bytes stay in its socket, and on a
// refusal it is closed, as a connection to a closed port would be.
function tunnel(client, port) {
  const target = '127.0.0.1:' + port;
  const { upstream, close } = linked(client);
  upstream.write('CONNECT ' + target + ' HTTP/1.1\r\nHost: ' + target + '\r\n\r\n');
  let answer = Buffer.alloc(0);
  const onAnswer = (chunk) => {
    answer = Buffer.concat([answer, chunk]);
    const headEnd = answer.indexOf('\r\n\r\n');
    if (headEnd < 0) {
      if (answer.length > MAX_ANSWER_BYTES) close();
      return;
    }
    upstream.off('data', onAnswer);
    upstream.pause();
    const statusLine = answer.subarray(0, answer.indexOf('\r\n')).toString('latin1');
    if (!/^HTTP\/1\.[01] 200( |$)/.test(statusLine)) return close();
    // The target may speak first (a database greeting), in the same read as the answer.
    const early = answer.subarray(headEnd + 4);
    if (early.length > 0) client.write(early);
    client.pipe(upstream);
    upstream.pipe(client);
  };
  upstream.on('data', onAnswer);
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

// The server starts only once every port it may use is there, so its first connection finds it.
let listening = 1 + loopbackPorts.length;
function listen(port, onConnection) {
  const server = net.createServer({ allowHalfOpen: true }, onConnection);
  server.on('error', (error) => finish(1, 'cannot listen on 127.0.0.1:' + port + ': ' + error.message));
  server.listen(port, '127.0.0.1', () => {
    listening -= 1;
    if (listening === 0) start();
  });
}

listen(Number(portText), relay);
for (const port of loopbackPorts) listen(port, (client) => tunnel(client, port));
`;

/**
 * The sandboxed command line: the bridge first, then the server's own `argv` as its child.
 * `loopbackPorts`: ports of the host's loopback the bridge also offers as 127.0.0.1:P inside; the
 * egress proxy must list the same ports, or it refuses their connections.
 */
export function bridgeArgv(nodePath: string, socketPath: string, port: number, argv: readonly string[], loopbackPorts: readonly number[] = []): string[] {
  if (argv.length === 0) throw new Error('egress bridge: no command to run');
  if (!isPort(port)) throw new Error(`egress bridge: port ${port} out of range`);
  for (const loopbackPort of loopbackPorts) {
    if (!isPort(loopbackPort)) throw new Error(`egress bridge: loopback port ${loopbackPort} out of range`);
    if (loopbackPort === port) {
      throw new Error(`egress bridge: loopback port ${loopbackPort} collides with the proxy port ${port} (HTTPS_PROXY); both would listen on 127.0.0.1:${port} in the sandbox`);
    }
  }
  // The bridge would read such a command as its own flag.
  if (argv[0]!.startsWith(LOOPBACK_FLAG)) throw new Error(`egress bridge: a command may not start with ${LOOPBACK_FLAG}`);
  const ports = [...new Set(loopbackPorts)];
  const flag = ports.length > 0 ? [`${LOOPBACK_FLAG}${ports.join(',')}`] : [];
  return [nodePath, '-e', EGRESS_BRIDGE_SOURCE, '--', socketPath, String(port), ...flag, ...argv];
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
