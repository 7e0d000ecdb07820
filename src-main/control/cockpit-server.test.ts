import { wsTestClients, type Frame } from '../testing/ws-test-client.js';
import { testServices } from '../testing/handlers.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WS_CLOSE_GOING_AWAY, WS_CLOSE_UNAUTHORIZED } from '../../src-shared/contract/wire.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import { SqliteAuditLog } from '../audit/audit-log.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { openDatabase } from '../store/database.js';
import { testLedgerKeys } from '../testing/ledger.js';
import { testAuditEvents, type TestAuditEvents } from '../testing/audit-events.js';
import { CockpitServer, assertBindAllowed, type CockpitAddress, type CockpitServerOptions } from './cockpit-server.js';
import { EventBus } from './event-bus.js';
import { createHandlers } from './handlers.js';
import { ControlRouter } from './router.js';
import { WS_MAX_MESSAGE_BYTES, WS_PATH } from './cockpit-socket-server.js';
import { sqliteConnection } from '../store/transaction.js';

const TOKEN = randomBytes(32).toString('base64url');
const INDEX_HTML = '<!doctype html><html><head><script type="module" src="/assets/app.js"></script></head><body>cockpit-index</body></html>';
const SECRET = 'SECRET-OUTSIDE-THE-STATIC-ROOT';

const info: RuntimeInfo = {
  version: '0.1.0-e2e',
  mode: 'headless',
  home: '/tmp/silas-e2e',
  ownerFingerprint: 'SHA256:test',
  startedAt: '2025-01-01T00:00:00.000Z',
  pid: process.pid,
};

let base: string;
let staticDir: string;
let db: ReturnType<typeof openDatabase>['db'];
let audit: SqliteAuditLog<TestAuditEvents>;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'silas-cockpit-'));
  staticDir = join(base, 'cockpit');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), INDEX_HTML);
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'export const cockpit = 1;\n');
  writeFileSync(join(base, 'secret.txt'), SECRET);
  db = openDatabase(join(base, 'silas.db'), { create: true }).db;
  audit = new SqliteAuditLog({ repository: new AuditRepository(db), keys: testLedgerKeys(join(base, 'silas.db')), catalogue: testAuditEvents });
  audit.append('runtime.started', { mode: 'headless', pid: 1, version: '0.0.0' });
  audit.append('aip.decision', { direction: 'upstream', policy_mode: 'enforce', violation: false, tool: 'fs.read', decision: 'allow' });
});

afterAll(() => {
  sqliteConnection(db).close();
  rmSync(base, { recursive: true, force: true });
});

type SecurityEvent = [string, Record<string, string | number>];

const cleanups: Array<() => Promise<void> | void> = [];
const Client = wsTestClients((cleanup) => cleanups.push(cleanup), { token: TOKEN, ready: { type: 'ready', serverVersion: '0.1.0-e2e' } });
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

interface Running {
  server: CockpitServer;
  address: CockpitAddress;
  port: number;
  bus: EventBus;
  security: SecurityEvent[];
}

async function startCockpit(overrides: Partial<CockpitServerOptions> = {}): Promise<Running> {
  const bus = new EventBus();
  const security: SecurityEvent[] = [];
  const router = new ControlRouter(createHandlers({ audit, ...testServices(db, audit), runtimeInfo: () => info, now: () => new Date('2025-06-01T12:00:00.000Z') }), { error: () => undefined });
  const server = new CockpitServer({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    router,
    events: bus,
    staticDir,
    messagesPerMinute: 600,
    serverVersion: '0.1.0-e2e',
    authTimeoutMs: 2_000,
    onSecurityEvent: (event, data) => security.push([event, data]),
    ...overrides,
  });
  const address = await server.start();
  cleanups.push(() => server.close('test over'));
  return { server, address, port: address.port, bus, security };
}

interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function http(port: number, options: { method?: string; path?: string; host?: string | null; headers?: Record<string, string> } = {}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.host !== null) headers.Host = options.host ?? `127.0.0.1:${port}`;
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/', setHost: false, headers, agent: false });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function rawUpgrade(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      setHost: false,
      agent: false,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), ...headers },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}


function tcpRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe('CockpitServer: addresses', () => {
  it('reports loopback http and ws URLs with the port the OS picked', async () => {
    const { address, port } = await startCockpit();
    expect(port).toBeGreaterThan(0);
    expect(address.url).toBe(`http://127.0.0.1:${port}/`);
    expect(address.wsUrl).toBe(`ws://127.0.0.1:${port}${WS_PATH}`);
  });
});

describe('CockpitServer: HTTP surface', () => {
  it('serves index.html at / with a strict CSP and security headers', async () => {
    const { port } = await startCockpit();
    const reply = await http(port);
    expect(reply.status).toBe(200);
    expect(reply.body).toBe(INDEX_HTML);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(reply.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`ws://127.0.0.1:${port}`);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/\*/);
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['x-frame-options']).toBe('DENY');
    expect(reply.headers['cache-control']).toBe('no-store');
  });

  it('serves an asset with its MIME type, and HEAD without a body', async () => {
    const { port } = await startCockpit();
    const js = await http(port, { path: '/assets/app.js' });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.body).toContain('cockpit = 1');
    const head = await http(port, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(INDEX_HTML));
  });

  it.each([['localhost:PORT'], ['[::1]:PORT'], ['LOCALHOST:PORT']])('accepts the loopback Host %s', async (template) => {
    const { port } = await startCockpit();
    expect((await http(port, { host: template.replace('PORT', String(port)) })).status).toBe(200);
  });

  it.each([['evil.example:PORT'], ['127.0.0.1.evil.com:PORT'], ['127.0.0.1:OTHER'], ['127.0.0.1'], ['evil.example']])(
    'answers a forged Host %s with 403 and no content',
    async (template) => {
      const { port } = await startCockpit();
      const host = template.replace('PORT', String(port)).replace('OTHER', String(port + 1));
      for (const path of ['/', '/healthz', '/assets/app.js']) {
        const reply = await http(port, { host, path });
        expect(reply.status).toBe(403);
        expect(reply.body).not.toContain('cockpit-index');
        expect(reply.body).not.toContain('cockpit = 1');
        expect(reply.body).not.toContain('"status"');
        expect(reply.headers['content-security-policy']).toBeUndefined();
      }
    },
  );

  it('refuses a request without a Host header', async () => {
    const { port } = await startCockpit();
    const reply = await http(port, { host: null });
    expect([400, 403]).toContain(reply.status);
    expect(reply.body).not.toContain('cockpit-index');
  });

  it.each([['POST'], ['PUT'], ['DELETE'], ['PATCH'], ['OPTIONS']])('answers %s with 405 and Allow: GET, HEAD', async (method) => {
    const { port } = await startCockpit();
    const reply = await http(port, { method, headers: { 'Content-Type': 'application/json' } });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('GET, HEAD');
  });

  it('answers /healthz with {"status":"ok"}', async () => {
    const { port } = await startCockpit();
    const reply = await http(port, { path: '/healthz?x=1' });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ status: 'ok' });
    expect(reply.body).not.toContain(TOKEN);
  });

  it('answers /health with the open connections and the Stream\'s queue pressure (spec 002 §8.1, §18.6), behind the Host check', async () => {
    const pressure = { state: 'busy', running: 1, waiting: 4, full_scopes: 1, max_waiting_per_scope: 4, turns: { cockpit: 5, 'local-socket': 0 }, max_turns_per_credential: 16 } as const;
    const { port, address } = await startCockpit({ queuePressure: () => pressure });
    expect(JSON.parse((await http(port, { path: '/health' })).body)).toEqual({ status: 'ok', connections: 0, queue: pressure });
    await Client.authed(address.wsUrl);
    const reply = await http(port, { path: '/health?probe=1' });
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(reply.body)).toEqual({ status: 'ok', connections: 1, queue: pressure });
    expect(reply.body).not.toContain(TOKEN);
    // A page on another name (DNS rebinding) cannot read it.
    expect((await http(port, { path: '/health', host: 'evil.example' })).status).toBe(403);
    // Without a Stream (a server built without a runtime) the queue is null.
    const bare = await startCockpit();
    expect(JSON.parse((await http(bare.port, { path: '/health' })).body)).toEqual({ status: 'ok', connections: 0, queue: null });
  });

  it.each([['/../secret.txt'], ['/%2e%2e/secret.txt'], ['/..%2fsecret.txt'], ['/assets/..%2f..%2fsecret.txt'], ['/..%5csecret.txt'], ['/index.html%00'], ['/nope.js']])(
    'answers the path %s with 404 and never the file outside the root',
    async (path) => {
      const { port } = await startCockpit();
      const reply = await http(port, { path });
      expect(reply.status).toBe(404);
      expect(reply.body).not.toContain(SECRET);
    },
  );

  it('answers 503 with build instructions when the cockpit is not built, while /healthz still works', async () => {
    const { port } = await startCockpit({ staticDir: null });
    const reply = await http(port);
    expect(reply.status).toBe(503);
    expect(reply.body).toContain('npm run build:cockpit');
    expect((await http(port, { path: '/healthz' })).status).toBe(200);
  });
});

describe('CockpitServer: WebSocket upgrade checks', () => {
  it('refuses a foreign Host and a foreign Origin with 403, and reports both', async () => {
    const { port, security } = await startCockpit();
    expect((await rawUpgrade(port, WS_PATH, { Host: `evil.example:${port}` })).status).toBe(403);
    expect((await rawUpgrade(port, WS_PATH, { Host: `127.0.0.1:${port}`, Origin: 'http://evil.example' })).status).toBe(403);
    expect(security.map((e) => [e[0], e[1].reason])).toEqual([
      ['control.upgrade_refused', 'forbidden Host header'],
      ['control.upgrade_refused', 'forbidden Origin header'],
    ]);
  });

  it('refuses a ws client whose Origin is foreign', async () => {
    const { address } = await startCockpit();
    const ws = new WebSocket(address.wsUrl, { origin: 'http://evil.example' });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => resolve(-1));
    });
    ws.terminate();
    expect(status).toBe(403);
  });

  it('accepts its own origin', async () => {
    const { address, port } = await startCockpit();
    const client = await Client.open(address.wsUrl, { origin: `http://localhost:${port}` });
    client.sendJson({ type: 'auth', token: TOKEN });
    expect((await client.next()).type).toBe('ready');
  });

  it('refuses a token in the URL with 400', async () => {
    const { port, security } = await startCockpit();
    const reply = await rawUpgrade(port, `${WS_PATH}?token=${TOKEN}`, { Host: `127.0.0.1:${port}` });
    expect(reply.status).toBe(400);
    expect(reply.body).toContain('never accepted in URLs');
    expect(JSON.stringify(security)).not.toContain(TOKEN);
  });

  it('refuses the wrong path', async () => {
    const { port } = await startCockpit();
    expect((await rawUpgrade(port, '/socket', { Host: `127.0.0.1:${port}` })).status).toBe(400);
    expect((await rawUpgrade(port, '/', { Host: `127.0.0.1:${port}` })).status).toBe(400);
  });
});

describe('CockpitServer: WebSocket auth and calls', () => {
  it('closes with 4001 when no auth arrives in time, on a wrong token, and on a non-auth first frame; reports each', async () => {
    const { address, security } = await startCockpit({ authTimeoutMs: 200 });
    const silent = await Client.open(address.wsUrl);
    const wrong = await Client.open(address.wsUrl);
    wrong.sendJson({ type: 'auth', token: 'not-the-token' });
    const call = await Client.open(address.wsUrl);
    call.sendJson({ type: 'call', id: 1, name: 'audit.list', args: {} });
    const codes = await Promise.all([silent.closed, wrong.closed, call.closed]);
    expect(codes.map((c) => c.code)).toEqual([WS_CLOSE_UNAUTHORIZED, WS_CLOSE_UNAUTHORIZED, WS_CLOSE_UNAUTHORIZED]);
    expect([...silent.all, ...wrong.all, ...call.all]).toEqual([]);
    const failures = security.filter((e) => e[0] === 'control.auth_failed');
    expect(failures).toHaveLength(3);
    expect(failures.map((e) => e[1].reason).sort()).toEqual(['first message was not an auth frame', 'no auth message within 200 ms', 'wrong token'].sort());
  });

  it('answers ready, then runtime.info, audit.list (from the real ledger) and audit.verify', async () => {
    const { address } = await startCockpit();
    const client = await Client.authed(address.wsUrl);
    expect(await client.call(1, 'runtime.info')).toEqual({ type: 'result', id: 1, result: { ok: true, value: info } });
    const list = await client.call('l', 'audit.list', { limit: 10 });
    expect(list.result.ok).toBe(true);
    const page = list.result.value;
    expect(page.total).toBeGreaterThanOrEqual(2);
    expect(page.entries.map((e: Frame) => e.index)).toEqual([...page.entries.map((e: Frame) => e.index)].sort((a: number, b: number) => b - a));
    expect(page.head).toEqual(audit.head());
    const older = await client.call('l2', 'audit.list', { before: page.head.index, limit: 1 });
    expect(older.result.value.entries).toHaveLength(1);
    expect(older.result.value.entries[0].index).toBe(page.head.index - 1);
    const verify = await client.call('v', 'audit.verify');
    expect(verify.result).toEqual({ ok: true, value: expect.objectContaining({ valid: true, verifiedAt: '2025-06-01T12:00:00.000Z' }) });
  });

  it('answers malformed traffic with error results and stays usable', async () => {
    const { address } = await startCockpit();
    const client = await Client.authed(address.wsUrl);
    client.ws.send('{not json');
    expect((await client.next()).result.error.code).toBe(ErrorCode.BadRequest);
    client.sendJson({ id: 'no-type', name: 'runtime.info' });
    const noType = await client.next();
    expect(noType.id).toBe('no-type');
    expect(noType.result.error.code).toBe(ErrorCode.BadRequest);
    expect((await client.call('u', 'secrets.dump')).result.error.code).toBe(ErrorCode.UnknownCall);
    const bad = await client.call('b', 'audit.list', { limit: -1 });
    expect(bad.result.error.code).toBe(ErrorCode.InvalidArgs);
    expect(bad.result.error.message).toContain('args.limit');
    client.ws.send(Buffer.from([0xde, 0xad, 0xbe, 0xef]), { binary: true });
    expect((await client.next()).result.error.code).toBe(ErrorCode.BadRequest);
    expect((await client.call('ok', 'runtime.info')).result.ok).toBe(true);
  });

  it('closes on an oversized message with 1009 and keeps serving new connections', async () => {
    const { address, port } = await startCockpit();
    const client = await Client.authed(address.wsUrl);
    client.ws.send('y'.repeat(WS_MAX_MESSAGE_BYTES + 1));
    expect((await client.closed).code).toBe(1009);
    const next = await Client.authed(address.wsUrl);
    expect((await next.call(1, 'runtime.info')).result.ok).toBe(true);
    expect((await http(port, { path: '/healthz' })).status).toBe(200);
  });

  it('with messagesPerMinute 5, refuses the 6th rapid call with E_RATE_LIMITED and reports it', async () => {
    const { address, security } = await startCockpit({ messagesPerMinute: 5 });
    const client = await Client.authed(address.wsUrl);
    for (let i = 1; i <= 6; i++) client.sendJson({ type: 'call', id: i, name: 'runtime.info' });
    const frames: Frame[] = [];
    for (let i = 1; i <= 6; i++) frames.push(await client.next());
    const sixth = frames.find((f: Frame) => f.id === 6);
    expect(sixth.result).toEqual({ ok: false, error: { code: ErrorCode.RateLimited, message: expect.stringContaining('5 messages per minute') } });
    expect(frames.filter((f: Frame) => f.result.ok)).toHaveLength(5);
    expect(security).toEqual([['control.rate_limited', expect.objectContaining({ limit_per_minute: 5 })]]);
  });

  it('pushes audit.appended events after auth, and none to an unauthenticated socket', async () => {
    const { address, bus } = await startCockpit();
    const listener = await Client.authed(address.wsUrl);
    const stranger = await Client.open(address.wsUrl);
    const appended = audit.append('control.test_event', { n: 1 });
    bus.publish('audit.appended', appended);
    expect(await listener.next()).toEqual({ type: 'event', name: 'audit.appended', payload: appended });
    // Frames are ordered: an event sent to the stranger would arrive before its `ready`.
    stranger.sendJson({ type: 'auth', token: TOKEN });
    expect((await stranger.next()).type).toBe('ready');
    expect(stranger.all.filter((f: Frame) => f.type === 'event')).toEqual([]);
  });
});

describe('CockpitServer: shutdown', () => {
  it('close() closes open sockets with 1001 and stops listening', async () => {
    const { server, address, port } = await startCockpit();
    const a = await Client.authed(address.wsUrl);
    const b = await Client.open(address.wsUrl);
    await server.close('runtime stopping');
    expect((await a.closed).code).toBe(WS_CLOSE_GOING_AWAY);
    expect((await b.closed).code).toBe(WS_CLOSE_GOING_AWAY);
    expect(await tcpRefused(port)).toBe(true);
  });

  it('stopAccepting() refuses new connections while open sockets keep working', async () => {
    const { server, address, port } = await startCockpit();
    const open = await Client.authed(address.wsUrl);
    server.stopAccepting();
    const attempt = new WebSocket(address.wsUrl);
    const outcome = await new Promise<string>((resolve) => {
      attempt.on('open', () => resolve('open'));
      attempt.on('unexpected-response', (_req, res) => resolve(`http ${res.statusCode}`));
      attempt.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    attempt.terminate();
    expect(['ECONNREFUSED', 'http 403']).toContain(outcome);
    expect(await tcpRefused(port)).toBe(true);
    expect((await open.call(1, 'runtime.info')).result.ok).toBe(true);
  });
});

describe('CockpitServer: bind rules', () => {
  it.each([['0.0.0.0'], ['::'], ['192.168.1.20'], ['silas.example.org']])('refuses to serve plain HTTP on %s without a flag', (host) => {
    let thrown: unknown;
    try {
      assertBindAllowed(host, false, false);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SilasError);
    expect((thrown as SilasError).code).toBe(ErrorCode.Config);
    expect((thrown as SilasError).message).toContain('--tls-cert');
    expect((thrown as SilasError).message).toContain('--insecure-remote');
    expect((thrown as SilasError).message).toContain(host);
  });

  it.each([['127.0.0.1'], ['127.0.0.53'], ['localhost'], ['::1'], ['[::1]']])('allows loopback %s without TLS', (host) => {
    expect(() => assertBindAllowed(host, false, false)).not.toThrow();
  });

  it('allows a remote bind with TLS or with --insecure-remote', () => {
    expect(() => assertBindAllowed('0.0.0.0', true, false)).not.toThrow();
    expect(() => assertBindAllowed('0.0.0.0', false, true)).not.toThrow();
  });

  it('the CockpitServer constructor enforces the same rule', () => {
    const base = { port: 0, token: TOKEN, router: new ControlRouter(createHandlers({ audit, ...testServices(db, audit), runtimeInfo: () => info }), { error: () => undefined }), events: new EventBus(), staticDir: null, messagesPerMinute: 10, serverVersion: 'x' };
    expect(() => new CockpitServer({ ...base, host: '0.0.0.0' })).toThrow(/--insecure-remote/);
    expect(() => new CockpitServer({ ...base, host: '0.0.0.0', insecureRemote: true })).not.toThrow();
  });

  it('a second server on a port in use rejects with E_PORT_IN_USE suggesting --port, and the first keeps serving', async () => {
    const first = await startCockpit();
    const second = new CockpitServer({
      host: '127.0.0.1',
      port: first.port,
      token: TOKEN,
      router: new ControlRouter(createHandlers({ audit, ...testServices(db, audit), runtimeInfo: () => info }), { error: () => undefined }),
      events: new EventBus(),
      staticDir,
      messagesPerMinute: 10,
      serverVersion: 'x',
    });
    let thrown: unknown;
    try {
      await second.start();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SilasError);
    expect((thrown as SilasError).code).toBe(ErrorCode.PortInUse);
    expect((thrown as SilasError).message).toContain('--port');
    expect((thrown as SilasError).message).toContain(String(first.port));
    await second.close('failed start');
    expect((await http(first.port)).status).toBe(200);
  });
});
