import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GovernedServer } from '../../../src-shared/schemas/servers.js';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import { busSocketPath } from '../../keys/session-bus.js';
import { DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH, probeBubblewrap } from '../../sandbox/bubblewrap.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { connectThroughProxy, createTestHome, SERVERS, verifiedEntries, writePolicy, type TestHome } from '../testing/proxy-harness.js';

// docs/mcp-proxy.md "Starting under any client": MCP clients start their
// servers with an environment of their choosing. Driven by the MCP SDK's own client with its
// default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER plus the entry's `env`), a wrapped,
// sandboxed server starts; and with no session bus at all the client is told why, and the Servers
// page shows it. Run under scripts/with-keyring.sh (a private session bus at a /tmp path).

const HOSTILE = new URL('../testing/servers/hostile-server.mjs', import.meta.url).pathname;
const tempDir = useTempDirs('silas-any-env-');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(async () => {
  expect(await probeBubblewrap(DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH), 'bubblewrap must be installed and able to create namespaces (apt-get install bubblewrap)').toMatchObject({ available: true });
  expect(busSocketPath(process.env.DBUS_SESSION_BUS_ADDRESS ?? ''), 'run under scripts/with-keyring.sh').not.toBeNull();
});

/** An SDK client started as a desktop client starts an entry: its command, args and env, nothing else. */
async function clientFor(entry: { command: string; args: string[]; env?: Record<string, string> }): Promise<{ client: Client; connecting: Promise<void>; stderr(): string }> {
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, ...(entry.env ? { env: entry.env } : {}), stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const client = new Client({ name: 'any-environment-test', version: '1.0.0' });
  cleanups.push(() => client.close().catch(() => undefined));
  return { client, connecting: client.connect(transport), stderr: () => err };
}

/** A grant by absolute path: the SDK's default environment carries the client's own HOME, not the test's. */
const SANDBOX = (dir: string) => `  x-silas-sandbox:\n    filesystem:\n      read: [${JSON.stringify(join(dir, 'user', 'project'))}]\n`;

/** A person's Claude Desktop configuration with one server, wrapped by `silas clients wrap` run in this (keyring) session. */
async function wrappedEntry(dir: string, home: TestHome, server: { command: string; args: string[] }, policySpec: string) {
  const user = join(dir, 'user');
  mkdirSync(join(user, 'project'), { recursive: true });
  const config = join(user, '.config', 'Claude', 'claude_desktop_config.json');
  mkdirSync(join(user, '.config', 'Claude'), { recursive: true });
  writeFileSync(config, JSON.stringify({ mcpServers: { files: server } }, null, 2));
  const policy = writePolicy(dir, policySpec, 'files.yaml', { home });
  const wrap = await runSilas(['clients', 'wrap', 'claude-desktop', '--config', config, '--policy', policy, '--home', home.home, '--yes'], { env: { ...process.env, HOME: user }, secretStore: home.secretStore });
  expect(wrap.code, wrap.out + wrap.err).toBe(0);
  return { user, entry: JSON.parse(readFileSync(config, 'utf8')).mcpServers.files as { command: string; args: string[]; env?: Record<string, string> } };
}

/** A socket at `dir/bus` that relays to this session's bus: the bus where libdbus would look for it. */
async function busRelay(dir: string): Promise<string> {
  const real = busSocketPath(process.env.DBUS_SESSION_BUS_ADDRESS!)!;
  const relay: Server = createServer((socket) => {
    const upstream = connect(real);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(join(dir, 'bus'), resolve));
  cleanups.push(() => new Promise<void>((resolve) => relay.close(() => resolve())));
  return join(dir, 'bus');
}

describe('a governed server under the MCP SDK client\'s default environment', () => {
  it('starts through the entry `silas clients wrap` wrote (its env carries the session bus), sandboxed, and a tool call works', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'silas-home'));
    const { entry } = await wrappedEntry(dir, home, { command: process.execPath, args: [SERVERS.fileTools] }, `  allowed_tools: [echo]\n${SANDBOX(dir)}`);
    expect(entry.env).toEqual({ DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });

    const { client, connecting, stderr } = await clientFor(entry);
    await connecting.catch((error: Error) => {
      throw new Error(`${error.message}\nproxy stderr:\n${stderr()}`);
    });
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello from a default environment' } });
    expect((result.content as { text: string }[])[0]!.text).toBe('hello from a default environment');
    await client.close();
    const started = verifiedEntries(home).find((e) => e.event === 'mcp.proxy_started');
    expect(started?.data).toMatchObject({ server: 'files', client: 'claude-desktop', sandbox: { backend: 'bubblewrap' } });
  });

  it('finds the bus as libdbus does when the written address is gone, and the sandboxed server still cannot reach it', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'silas-home'));
    const runtimeDir = join(dir, 'xdg-runtime');
    mkdirSync(runtimeDir, { mode: 0o700 });
    const bus = await busRelay(runtimeDir);
    const targets = Buffer.from(JSON.stringify({ bus })).toString('base64');
    const { entry } = await wrappedEntry(dir, home, { command: process.execPath, args: [HOSTILE, targets] }, `  allowed_tools: [connect_unix]\n${SANDBOX(dir)}`);
    // The session that wrapped the entry has ended (its socket is gone); this client passes XDG_RUNTIME_DIR.
    const env = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'ended-session-bus')},guid=0`, XDG_RUNTIME_DIR: runtimeDir };

    const { client, connecting, stderr } = await clientFor({ ...entry, env });
    await connecting.catch((error: Error) => {
      throw new Error(`${error.message}\nproxy stderr:\n${stderr()}`);
    });
    const attempt = (await client.callTool({ name: 'connect_unix', arguments: { target: 'bus' } })) as { content: { text: string }[] };
    expect(JSON.parse(attempt.content[0]!.text)).toMatchObject({ ok: false });
    await client.close();
    expect(verifiedEntries(home).some((e) => e.event === 'mcp.proxy_started' && e.data.server === 'files')).toBe(true);
  });
});

describe('a proxy that starts nothing', () => {
  it('tells the client why its policy stopped it, instead of a bare "Connection closed"', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'silas-home'));
    const { entry } = await wrappedEntry(dir, home, { command: process.execPath, args: [SERVERS.fileTools] }, '  allowed_tools: [echo]\n');
    // The person's edit broke the policy file after it was wrapped.
    writeFileSync(join(dir, 'files.yaml'), readFileSync(join(dir, 'files.yaml'), 'utf8').replace('allowed_tools: [echo]', 'mode: sometimes'));
    const { connecting } = await clientFor(entry);
    const error = await connecting.then(() => null, (e: Error) => e);
    expect(error?.message).toMatch(/silas proxy did not start "files": the policy is invalid: .*files\.yaml:\d+:\d+ .*mode/);
    expect(error?.message).toContain('silas policy validate FILE');
    expect(error?.message).toContain("This is recorded in Silas's ledger.");
    expect(error?.message).not.toContain('Connection closed');
  });
});

describe('with no session bus at all', () => {
  /** No D-Bus address, and an XDG_RUNTIME_DIR without a bus: nowhere to find the keyring. */
  function noBusEnvironment(dir: string): Record<string, string> {
    const uid = process.getuid!();
    expect(existsSync(`/run/user/${uid}/bus`), `this test needs /run/user/${uid}/bus to be absent`).toBe(false);
    const empty = join(dir, 'empty-runtime-dir');
    mkdirSync(empty, { mode: 0o700 });
    return { XDG_RUNTIME_DIR: empty };
  }

  it('the client is told what failed and what to fix, and that nothing could record it without a runtime', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'silas-home'));
    const { entry } = await wrappedEntry(dir, home, { command: process.execPath, args: [SERVERS.fileTools] }, '  allowed_tools: [echo]\n');
    const { connecting } = await clientFor({ ...entry, env: noBusEnvironment(dir) });
    const error = await connecting.then(() => null, (e: Error) => e);
    expect(error?.message).toMatch(/silas proxy could not start "files": the OS keyring .* is not reachable/);
    expect(error?.message).toContain('no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set');
    expect(error?.message).toContain('To fix: ');
    expect(error?.message).toContain("this message and the proxy's stderr are all there is");
    expect(error?.message).not.toContain('Connection closed');
  });

  it('with the runtime running, the failure is recorded and the Servers page shows it until a start succeeds', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'silas-home'));
    const { entry } = await wrappedEntry(dir, home, { command: process.execPath, args: [SERVERS.fileTools] }, '  allowed_tools: [echo]\n');
    const runtime = await buildRuntime({ home: home.home, mode: 'headless' }, { secretStore: home.secretStore, logger: silentLogger, clientLocations: { platform: 'linux', env: {}, home: join(dir, 'user') } });
    await runtime.start();
    cleanups.push(() => runtime.stop('test'));

    const { connecting } = await clientFor({ ...entry, env: noBusEnvironment(dir) });
    const error = await connecting.then(() => null, (e: Error) => e);
    expect(error?.message).toMatch(/the OS keyring .* is not reachable/);
    expect(error?.message).toContain('This was recorded on the Servers page of Silas.');

    const servers = async () => ((await runtime.router.dispatch('servers.list', {}, { transport: 'ipc', session: 'session-ipc' })) as { ok: true; value: { servers: GovernedServer[] } }).value.servers;
    const files = (await servers()).find((s) => s.name === 'files');
    expect(files?.lastStartedAt).toBeNull();
    expect(files?.startFailure).toMatchObject({ client: 'claude-desktop', reason: expect.stringMatching(/the OS keyring .* is not reachable/), fix: expect.stringContaining('DBUS_SESSION_BUS_ADDRESS') });
    const reported = runtime.audit.tail(50).find((e) => e.event === 'mcp.proxy_start_reported');
    expect(reported?.data).toMatchObject({ server: 'files', client: 'claude-desktop', transport: 'local-socket' });

    // A later start that succeeds settles it.
    const proxied = await connectThroughProxy({ home: home.home, policy: join(dir, 'files.yaml'), server: SERVERS.fileTools, extra: ['--name', 'files'] });
    cleanups.push(() => proxied.close());
    await expect.poll(async () => (await servers()).find((s) => s.name === 'files')?.startFailure, { timeout: 10_000 }).toBeUndefined();
  });
});
