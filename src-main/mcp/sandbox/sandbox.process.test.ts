import { createServer as createTcpServer, type Server } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OsKeyring } from '../../keys/secret-store.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { connectThroughProxy, createTestHome, verifiedEntries, writePolicy, type ProxiedClient, type TestHome } from '../testing/proxy-harness.js';
import { useTempDirs } from '../../testing/temp.js';
import { DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH, probeBubblewrap } from '../../sandbox/bubblewrap.js';

// DESIGN invariant 10 (docs/mcp-sandbox.md): a hostile MCP server's own attacks, first unsandboxed
// (they work: the control that shows each attack is real) and then in its sandbox (each one fails),
// with the proxy still relaying afterwards and the ledger saying what the sandbox allowed.

const HOSTILE = fileURLToPath(new URL('../testing/servers/hostile-server.mjs', import.meta.url));
const tempDir = useTempDirs('silas-sandbox-');
const open: ProxiedClient[] = [];
const listeners: Server[] = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close().catch(() => undefined);
  for (const l of listeners.splice(0)) l.close();
});

beforeAll(async () => {
  const availability = await probeBubblewrap(DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH);
  // .ci/run installs bubblewrap; a machine without it cannot run these tests, and must not pass them.
  expect(availability, 'bubblewrap must be installed and able to create namespaces (apt-get install bubblewrap)').toMatchObject({ available: true });
});

interface World {
  dir: string;
  home: TestHome;
  userHome: string;
  granted: string;
  writable: string;
  targets: Record<string, string | number>;
}

async function listen(server: Server, where: { path: string } | { port: 0; host: '127.0.0.1' }): Promise<Server> {
  listeners.push(server);
  await new Promise<void>((resolve) => server.listen(where, resolve));
  return server;
}

/** A person's home with an SSH key, a data home with its ledger and control surfaces, and two granted folders. */
async function world(): Promise<World> {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'silas-home'));
  const userHome = join(dir, 'user');
  const granted = join(userHome, 'project');
  const writable = join(userHome, 'notes');
  mkdirSync(join(userHome, '.ssh'), { recursive: true });
  mkdirSync(granted, { recursive: true });
  mkdirSync(writable, { recursive: true });
  writeFileSync(join(userHome, '.ssh', 'id_rsa'), 'PRIVATE KEY');
  writeFileSync(join(granted, 'readme.md'), 'granted text');
  writeFileSync(join(granted, '.env'), 'TOKEN=protected');
  writeFileSync(join(home.home, 'control.json'), JSON.stringify({ token: 'ask-credential' }));
  // The runtime's control socket and a loopback service (its WebSocket, any local database).
  await listen(createTcpServer((s) => s.end()), { path: join(home.home, 'control.sock') });
  const tcp = await listen(createTcpServer((s) => s.end()), { port: 0, host: '127.0.0.1' });
  const bus = /unix:(path|abstract)=([^,]+)/.exec(process.env.DBUS_SESSION_BUS_ADDRESS ?? '');
  const targets = {
    ssh: join(userHome, '.ssh', 'id_rsa'),
    ledger: join(home.home, 'silas.db'),
    dataHome: home.home,
    control: join(home.home, 'control.json'),
    controlSocket: join(home.home, 'control.sock'),
    tcp: (tcp.address() as { port: number }).port,
    database: ((await listen(createTcpServer((s) => s.end('database here')), { port: 0, host: '127.0.0.1' })).address() as { port: number }).port,
    bus: bus ? (bus[1] === 'abstract' ? `\0${bus[2]}` : bus[2]!) : '/run/dbus/system_bus_socket',
    granted: join(granted, 'readme.md'),
    grantedEnv: join(granted, '.env'),
    grantedNew: join(granted, 'new.txt'),
    writableNew: join(writable, 'new.txt'),
    homeNew: join(userHome, 'planted.txt'),
  };
  return { dir, home, userHome, granted, writable, targets };
}

async function start(w: World, spec: string, options: { sandbox: boolean; env?: Record<string, string> }): Promise<ProxiedClient> {
  const policy = writePolicy(w.dir, `  allowed_tools: [read_file, list_dir, write_file, connect_unix, connect_tcp, environment, env_value, processes, fork, allocate, egress]\n  protected_paths: ["~/.ssh", "${join(w.granted, '.env')}"]\n${spec}`);
  const proxied = await connectThroughProxy({
    home: w.home.home,
    policy,
    server: HOSTILE,
    serverArgs: [Buffer.from(JSON.stringify(w.targets)).toString('base64')],
    sandbox: options.sandbox,
    env: { HOME: w.userHome, LEAKY_PARENT_SECRET: 'parent-only', ...options.env },
  });
  open.push(proxied);
  return proxied;
}

type Outcome = { ok: boolean; detail: string };
async function attack(proxied: ProxiedClient, name: string, args: Record<string, unknown> = {}): Promise<Outcome> {
  const result = (await proxied.client.callTool({ name, arguments: args })) as { content: { text: string }[] };
  return JSON.parse(result.content[0]!.text) as Outcome;
}

const entries = verifiedEntries;

const SANDBOX = (extra = '') => `  x-silas-sandbox:\n    filesystem:\n      read: ["~/project"]\n      write: ["~/notes"]\n    limits:\n      max_processes: 64\n      max_memory_mb: 256\n${extra}`;

describe('a hostile MCP server', () => {
  it('unsandboxed (--no-sandbox), reaches everything the person can: each attack below is real, and the start is recorded as unsandboxed', async () => {
    const w = await world();
    const proxied = await start(w, '', { sandbox: false });
    expect(await attack(proxied, 'read_file', { target: 'ssh' })).toEqual({ ok: true, detail: 'PRIVATE KEY' });
    expect(await attack(proxied, 'read_file', { target: 'control' })).toMatchObject({ ok: true });
    expect(await attack(proxied, 'list_dir', { target: 'dataHome' })).toMatchObject({ ok: true, detail: expect.stringContaining('silas.db') });
    expect(await attack(proxied, 'connect_unix', { target: 'controlSocket' })).toMatchObject({ ok: true });
    expect(await attack(proxied, 'connect_tcp', { target: 'tcp' })).toMatchObject({ ok: true });
    expect(await attack(proxied, 'connect_unix', { target: 'bus' })).toMatchObject({ ok: true });
    expect((await attack(proxied, 'environment')).detail.split(',')).toContain('LEAKY_PARENT_SECRET');
    expect(proxied.stderr()).toMatch(/runs UNSANDBOXED \(started with --no-sandbox\)/);
    await open.pop()!.close();
    const started = entries(w.home).find((e) => e.event === 'mcp.proxy_started');
    expect(started?.data.sandbox).toMatchObject({ backend: 'none', unsandboxedReason: 'started with --no-sandbox' });
  });

  it('sandboxed, is refused every attack, sees only its grants, and the proxy keeps relaying', async () => {
    const w = await world();
    const proxied = await start(w, SANDBOX(), { sandbox: true });
    for (const target of ['ssh', 'control', 'ledger']) expect(await attack(proxied, 'read_file', { target }), target).toMatchObject({ ok: false });
    expect(await attack(proxied, 'list_dir', { target: 'dataHome' })).toMatchObject({ ok: false });
    for (const target of ['controlSocket', 'bus']) expect(await attack(proxied, 'connect_unix', { target }), target).toMatchObject({ ok: false });
    expect(await attack(proxied, 'connect_tcp', { target: 'tcp' })).toMatchObject({ ok: false });
    // Its own grants: read-only where granted so, writable where granted so.
    expect(await attack(proxied, 'read_file', { target: 'granted' })).toEqual({ ok: true, detail: 'granted text' });
    expect(await attack(proxied, 'write_file', { target: 'grantedNew' })).toMatchObject({ ok: false, detail: expect.stringMatching(/EROFS/) });
    expect(await attack(proxied, 'write_file', { target: 'writableNew' })).toMatchObject({ ok: true });
    expect(readFileSync(w.targets.writableNew as string, 'utf8')).toBe('written by the hostile server');
    // A protected path inside a grant is hidden; what it writes to its HOME stays in the sandbox.
    expect(await attack(proxied, 'read_file', { target: 'grantedEnv' })).toMatchObject({ ok: false });
    expect(await attack(proxied, 'write_file', { target: 'homeNew' })).toMatchObject({ ok: true });
    expect(existsSync(w.targets.homeNew as string)).toBe(false);
    // Only the variables it was given (and PWD, which bubblewrap sets to its folder); no process of the host.
    expect((await attack(proxied, 'environment')).detail.split(',')).toEqual(['HOME', 'PATH', 'PWD', 'TMPDIR']);
    const pids = (await attack(proxied, 'processes')).detail.split(',');
    expect(pids).not.toContain(String(process.pid));
    expect(pids.length).toBeLessThan(10);
    // 1,000 processes: the cgroup's pids.max stops it short of its 64.
    const fork = await attack(proxied, 'fork', { count: 1000 });
    expect(fork.ok).toBe(false);
    expect(Number(/started (\d+)/.exec(fork.detail)![1])).toBeLessThan(64);
    expect(await attack(proxied, 'read_file', { target: 'granted' })).toEqual({ ok: true, detail: 'granted text' });

    // Past its memory limit the kernel kills it; the proxy answers, records it and stops cleanly.
    await expect(attack(proxied, 'allocate', { mb: 1024 })).rejects.toThrow(/MCP server unavailable|Connection closed/);
    await open.pop()!.close();
    const all = entries(w.home);
    const started = all.find((e) => e.event === 'mcp.proxy_started')!;
    expect(started.data.sandbox).toMatchObject({
      backend: 'bubblewrap',
      read: [w.granted],
      write: [w.writable],
      masked: [join(w.granted, '.env')],
      env: ['HOME', 'PATH', 'TMPDIR'],
      network: { mode: 'none', hosts: [] },
      limits: { max_processes: 64, max_memory_mb: 256 },
    });
    expect(all.find((e) => e.event === 'mcp.proxy_stopped')?.data.limits).toMatchObject({ process_limit_hit: true, memory_limit_hit: true });
  });

  it('keeps its mounts when the policy is edited: a changed x-silas-sandbox applies at the next start, and the proxy says so', async () => {
    const w = await world();
    const proxied = await start(w, SANDBOX(), { sandbox: true });
    expect(await attack(proxied, 'read_file', { target: 'granted' })).toMatchObject({ ok: true });
    writePolicy(w.dir, `  allowed_tools: [read_file]\n  x-silas-sandbox:\n    filesystem:\n      read: ["~/notes"]\n`);
    const deadline = Date.now() + 5000;
    while (!/x-silas-sandbox changed; it applies when the MCP server is restarted/.test(proxied.stderr()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(proxied.stderr()).toMatch(/x-silas-sandbox changed; it applies when the MCP server is restarted/);
    // The new rules are in force; the old mounts stay until a restart.
    expect(await attack(proxied, 'read_file', { target: 'granted' })).toMatchObject({ ok: true });
    await expect(attack(proxied, 'list_dir', { target: 'dataHome' })).rejects.toThrow();
  });

  it('gets an API key from the keyring as a variable, and the value is in no file, log or ledger entry', async () => {
    const w = await world();
    const name = `test-api-key-${process.pid}-${Date.now()}`;
    const value = `sk-test-${Math.random().toString(36).slice(2)}-${Date.now()}`;
    const secrets = new NamedSecrets(new OsKeyring());
    secrets.set(name, value);
    try {
      const proxied = await start(w, `  x-silas-sandbox:\n    env:\n      secrets:\n        API_KEY: ${name}\n`, { sandbox: true });
      expect(await attack(proxied, 'env_value', { name: 'API_KEY' })).toEqual({ ok: true, detail: value });
      const stderr = proxied.stderr();
      await open.pop()!.close();
      expect(stderr).not.toContain(value);
      expect(JSON.stringify(entries(w.home))).not.toContain(value);
      expect(entries(w.home).find((e) => e.event === 'mcp.proxy_started')?.data.sandbox).toMatchObject({ secrets: ['API_KEY'] });
      const files = (dir: string): string[] => readdirSync(dir).flatMap((entry) => (statSync(join(dir, entry)).isDirectory() ? files(join(dir, entry)) : [join(dir, entry)]));
      for (const file of files(w.dir)) {
        if (statSync(file).isFile()) expect(readFileSync(file).includes(value), file).toBe(false);
      }
    } finally {
      secrets.delete(name);
    }
  });

  it('may reach only the hosts its policy lists, through the egress proxy, and each refusal is in the ledger with the host', async () => {
    const w = await world();
    const proxied = await start(w, `  x-silas-sandbox:\n    network:\n      mode: hosts\n      hosts: ["api.allowed.test"]\n`, { sandbox: true });
    expect(await attack(proxied, 'egress', { host: 'exfil.example.com', port: 443 })).toMatchObject({ ok: false, detail: expect.stringMatching(/^HTTP\/1\.1 403/) });
    expect(await attack(proxied, 'egress', { host: '127.0.0.1', port: (w.targets.tcp as number) })).toMatchObject({ ok: false, detail: expect.stringMatching(/^HTTP\/1\.1 403/) });
    expect(await attack(proxied, 'connect_tcp', { target: 'tcp' })).toMatchObject({ ok: false });
    await open.pop()!.close();
    const denied = entries(w.home).filter((e) => e.event === 'mcp.sandbox_denied').map((e) => [e.data.host, e.data.port]);
    expect(denied).toEqual([
      ['exfil.example.com', 443],
      ['127.0.0.1', w.targets.tcp],
    ]);
  });

  it("reaches only the host loopback ports its policy lists (a local database), and nothing else of the host's network", async () => {
    const w = await world();
    const proxied = await start(w, `  x-silas-sandbox:\n    network:\n      mode: loopback\n      loopback_ports: [${w.targets.database}]\n`, { sandbox: true });
    expect(await attack(proxied, 'connect_tcp', { target: 'database' })).toMatchObject({ ok: true });
    expect(await attack(proxied, 'connect_tcp', { target: 'tcp' })).toMatchObject({ ok: false });
    expect(await attack(proxied, 'environment')).not.toMatchObject({ detail: expect.stringContaining('HTTPS_PROXY') });
    await open.pop()!.close();
    const all = entries(w.home);
    expect(all.filter((e) => e.event === 'mcp.sandbox_allowed').map((e) => [e.data.host, e.data.port])).toEqual([['127.0.0.1', w.targets.database]]);
    expect(all.find((e) => e.event === 'mcp.proxy_started')?.data.sandbox).toMatchObject({ network: { mode: 'loopback', hosts: [], loopbackPorts: [w.targets.database] } });
  });
});
