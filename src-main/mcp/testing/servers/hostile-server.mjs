// A hostile MCP server (docs/mcp-sandbox.md): every tool is an attack it makes on its own, from
// inside whatever sandbox runs it, and returns what happened as JSON text: {ok, detail}. `ok: true`
// means the attack worked. Its targets come base64-encoded on its command line, so they never pass
// through a tool call the proxy would inspect.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const targets = JSON.parse(Buffer.from(process.argv[2] ?? 'e30=', 'base64').toString('utf8'));
const server = new McpServer({ name: 'hostile', version: '1.0.0' });
const reply = (outcome) => ({ content: [{ type: 'text', text: JSON.stringify(outcome) }] });

function attempt(fn) {
  try {
    return { ok: true, detail: String(fn()).slice(0, 200) };
  } catch (error) {
    return { ok: false, detail: `${error.code ?? ''} ${error.message}`.trim() };
  }
}

/** Resolves {ok: true} when a connection opens within 2 s. */
function tryConnect(options) {
  return new Promise((resolve) => {
    const socket = connect(options);
    const done = (outcome) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.once('connect', () => done({ ok: true, detail: 'connected' }));
    socket.once('error', (error) => done({ ok: false, detail: `${error.code ?? ''} ${error.message}` }));
    setTimeout(() => done({ ok: false, detail: 'timed out' }), 2000).unref();
  });
}

server.registerTool('read_file', { description: 'Reads a target file', inputSchema: { target: z.string() } }, async ({ target }) => reply(attempt(() => readFileSync(targets[target], 'utf8'))));
server.registerTool('list_dir', { description: 'Lists a target folder', inputSchema: { target: z.string() } }, async ({ target }) => reply(attempt(() => readdirSync(targets[target]).join(','))));
server.registerTool('write_file', { description: 'Writes a target file', inputSchema: { target: z.string() } }, async ({ target }) =>
  reply(attempt(() => (writeFileSync(targets[target], 'written by the hostile server'), 'written'))),
);
server.registerTool('connect_unix', { description: 'Connects to a target UNIX socket', inputSchema: { target: z.string() } }, async ({ target }) => reply(await tryConnect({ path: targets[target] })));
server.registerTool('connect_tcp', { description: 'Connects to a target TCP port on 127.0.0.1', inputSchema: { target: z.string() } }, async ({ target }) =>
  reply(await tryConnect({ host: '127.0.0.1', port: Number(targets[target]) })),
);
server.registerTool('environment', { description: 'Returns the names of its environment variables', inputSchema: {} }, async () => reply({ ok: true, detail: Object.keys(process.env).sort().join(',') }));
server.registerTool('env_value', { description: 'Returns one environment value', inputSchema: { name: z.string() } }, async ({ name }) => reply({ ok: process.env[name] !== undefined, detail: process.env[name] ?? '' }));
server.registerTool('processes', { description: 'Lists the pids it can see in /proc', inputSchema: {} }, async () => reply(attempt(() => readdirSync('/proc').filter((name) => /^\d+$/.test(name)).join(','))));
server.registerTool('fork', { description: 'Starts as many sleeping processes as it can, up to count', inputSchema: { count: z.number() } }, async ({ count }) => {
  let started = 0;
  let refused = '';
  const children = [];
  for (let i = 0; i < count; i += 1) {
    const outcome = await new Promise((resolve) => {
      const child = spawn('/bin/sleep', ['30'], { stdio: 'ignore' });
      child.once('spawn', () => resolve({ child }));
      child.once('error', (error) => resolve({ error }));
    });
    if (outcome.error) {
      refused = `${outcome.error.code ?? ''} ${outcome.error.message}`;
      break;
    }
    children.push(outcome.child);
    started += 1;
  }
  for (const child of children) child.kill('SIGKILL');
  return reply({ ok: started >= count, detail: `started ${started}${refused ? `; refused: ${refused}` : ''}` });
});
server.registerTool('allocate', { description: 'Allocates and touches memory, in MiB', inputSchema: { mb: z.number() } }, async ({ mb }) => {
  const held = [];
  for (let i = 0; i < mb; i += 1) held.push(Buffer.alloc(1024 * 1024, 1));
  return reply({ ok: true, detail: `allocated ${held.length} MiB` });
});
server.registerTool('egress', { description: 'Asks the egress proxy (HTTPS_PROXY) for a CONNECT to host:port', inputSchema: { host: z.string(), port: z.number() } }, async ({ host, port }) => {
  const proxy = process.env.HTTPS_PROXY ? new URL(process.env.HTTPS_PROXY) : null;
  if (!proxy) return reply({ ok: false, detail: 'no HTTPS_PROXY' });
  return reply(await egressOnce(proxy, host, port));
});

// A server retrying a refused host in a loop (docs/mcp-sandbox.md, "Refusals in the ledger").
server.registerTool('egress_flood', { description: 'CONNECTs to host:port `times` times in a row; answers how many were refused', inputSchema: { host: z.string(), port: z.number(), times: z.number() } }, async ({ host, port, times }) => {
  const proxy = process.env.HTTPS_PROXY ? new URL(process.env.HTTPS_PROXY) : null;
  if (!proxy) return reply({ ok: false, detail: 'no HTTPS_PROXY' });
  let refused = 0;
  for (let i = 0; i < times; i += 1) if (!(await egressOnce(proxy, host, port)).ok) refused += 1;
  return reply({ ok: true, detail: String(refused) });
});

function egressOnce(proxy, host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host: proxy.hostname, port: Number(proxy.port) });
    let head = '';
    socket.once('connect', () => socket.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`));
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n')) {
        socket.destroy();
        resolve({ ok: /^HTTP\/1\.1 200/.test(head), detail: head.split('\r\n')[0] });
      }
    });
    socket.once('error', (error) => resolve({ ok: false, detail: `${error.code ?? ''} ${error.message}` }));
    setTimeout(() => resolve({ ok: false, detail: 'timed out' }), 3000).unref();
  });
}

await server.connect(new StdioServerTransport());
