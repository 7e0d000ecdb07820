import { wsTestClients, type Frame } from '../testing/ws-test-client.js';
import { unusedHandlers } from '../testing/handlers.js';
import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WS_CLOSE_GOING_AWAY, WS_CLOSE_UNAUTHORIZED } from '../../src-shared/contract/wire.js';
import { ErrorCode } from '../../src-shared/errors.js';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import { EventBus } from './event-bus.js';
import { OriginPolicy } from './origin-policy.js';
import { ControlRouter, type CallContext, type CallHandlers } from './router.js';
import { WS_MAX_MESSAGE_BYTES, WS_PATH, CockpitSocketServer, type CockpitSocketServerOptions } from './cockpit-socket-server.js';

const TOKEN = 'tok_' + 'a1b2c3d4'.repeat(8);

const info: RuntimeInfo = {
  version: '0.1.0-test',
  mode: 'headless',
  home: '/tmp/home',
  ownerFingerprint: 'fp',
  startedAt: '2025-01-01T00:00:00.000Z',
  pid: 1,
};

const entry: AuditEntry = {
  index: 3,
  id: 'entry-3',
  ts: '2025-01-01T00:00:03.000Z',
  event: 'aip.decision',
  data: { tool: 'fs.read', decision: 'allow' },
  prevHash: 'b'.repeat(64),
  hash: 'c'.repeat(64),
};

type SecurityEvent = [string, Record<string, string | number>];

interface Harness {
  port: number;
  url: string;
  server: Server;
  transport: CockpitSocketServer;
  bus: EventBus;
  security: SecurityEvent[];
  dispatched: Array<{ name: string; ctx: CallContext }>;
  clock: { t: number };
}

const cleanups: Array<() => Promise<void> | void> = [];
const Client = wsTestClients((cleanup) => cleanups.push(cleanup), { token: TOKEN });

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function harness(options: Partial<CockpitSocketServerOptions> & { handlers?: Partial<CallHandlers> } = {}): Promise<Harness> {
  const { handlers: overrides, ...transportOverrides } = options;
  const dispatched: Harness['dispatched'] = [];
  const handlers: CallHandlers = {
    ...unusedHandlers(),
    'runtime.info': (_args, ctx) => {
      dispatched.push({ name: 'runtime.info', ctx });
      return info;
    },
    'audit.list': (_args, ctx) => {
      dispatched.push({ name: 'audit.list', ctx });
      return { entries: [entry], total: 1, head: { index: 3, hash: entry.hash } };
    },
    'audit.verify': () => ({ valid: true, entries: 1, checkpoints: 0, firstInvalid: null, verifiedAt: '2025-01-01T00:00:00.000Z' }),
    ...overrides,
  };
  const router = new ControlRouter(handlers, { error: () => undefined });
  const bus = new EventBus();
  const security: SecurityEvent[] = [];
  const clock = { t: 1_000_000 };
  const server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const transport = new CockpitSocketServer({
    token: TOKEN,
    router,
    events: bus,
    originPolicy: new OriginPolicy(port),
    messagesPerMinute: 1000,
    serverVersion: '9.9.9-test',
    authTimeoutMs: 2_000,
    onSecurityEvent: (event, data) => security.push([event, data]),
    now: () => clock.t,
    ...transportOverrides,
  });
  server.on('upgrade', (req, socket, head) => transport.handleUpgrade(req, socket, head));
  cleanups.push(async () => {
    await transport.closeAll('test over');
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port, url: `ws://127.0.0.1:${port}${WS_PATH}`, server, transport, bus, security, dispatched, clock };
}


interface UpgradeOutcome {
  status: number;
  body: string;
}

/** A raw upgrade through node:http, so Host and Origin can be forged freely. */
function rawUpgrade(port: number, path: string, headers: Record<string, string | undefined>): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const clean: Record<string, string> = {};
    for (const [k, v] of Object.entries({
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
      ...headers,
    })) {
      if (v !== undefined) clean[k] = v;
    }
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', setHost: false, headers: clean });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const goodHost = (port: number) => `127.0.0.1:${port}`;

describe('WebSocket upgrade: Host, Origin, path and URL checks', () => {
  it('accepts a loopback Host with its own Origin', async () => {
    const h = await harness();
    expect((await rawUpgrade(h.port, WS_PATH, { Host: goodHost(h.port), Origin: `http://127.0.0.1:${h.port}` })).status).toBe(101);
    expect((await rawUpgrade(h.port, WS_PATH, { Host: `localhost:${h.port}`, Origin: `http://localhost:${h.port}` })).status).toBe(101);
    expect((await rawUpgrade(h.port, WS_PATH, { Host: `[::1]:${h.port}`, Origin: `http://[::1]:${h.port}` })).status).toBe(101);
    expect(h.security).toEqual([]);
  });

  it('refuses an upgrade without an Origin (a non-browser process) with 403 and reports it', async () => {
    const h = await harness();
    const outcome = await rawUpgrade(h.port, WS_PATH, { Host: goodHost(h.port) });
    expect(outcome.status).toBe(403);
    expect(outcome.body).toContain('missing Origin');
    expect(h.security).toEqual([['control.upgrade_refused', expect.objectContaining({ origin: '', reason: expect.stringContaining('missing Origin') })]]);
    expect(h.transport.connections).toBe(0);
  });

  it.each([['evil.example:PORT'], ['127.0.0.1.evil.com:PORT'], ['127.0.0.1:OTHER'], ['localhost']])('refuses Host %s with 403 and reports it', async (template) => {
    const h = await harness();
    const host = template.replace('PORT', String(h.port)).replace('OTHER', String(h.port + 1));
    const outcome = await rawUpgrade(h.port, WS_PATH, { Host: host });
    expect(outcome.status).toBe(403);
    expect(outcome.body).toContain('Host');
    expect(h.security).toHaveLength(1);
    expect(h.security[0]?.[0]).toBe('control.upgrade_refused');
    expect(h.security[0]?.[1].host).toBe(host);
    expect(h.transport.connections).toBe(0);
  });

  it('refuses an upgrade without any Host header', async () => {
    const h = await harness();
    const outcome = await rawUpgrade(h.port, WS_PATH, { Host: undefined });
    expect([400, 403]).toContain(outcome.status);
    expect(h.transport.connections).toBe(0);
  });

  it.each([['http://evil.example'], ['null'], ['http://localhost:OTHER'], ['https://127.0.0.1:PORT'], ['http://127.0.0.1:PORT.evil.com']])(
    'refuses Origin %s with 403 and reports it',
    async (template) => {
      const h = await harness();
      const origin = template.replace('PORT', String(h.port)).replace('OTHER', String(h.port + 1));
      const outcome = await rawUpgrade(h.port, WS_PATH, { Host: goodHost(h.port), Origin: origin });
      expect(outcome.status).toBe(403);
      expect(outcome.body).toContain('Origin');
      expect(h.security).toEqual([['control.upgrade_refused', expect.objectContaining({ origin, reason: 'forbidden Origin header' })]]);
    },
  );

  it('refuses a browser-style client from a foreign origin (ws client)', async () => {
    const h = await harness();
    const ws = new WebSocket(h.url, { origin: 'http://evil.example' });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => resolve(-1));
    });
    ws.terminate();
    expect(status).toBe(403);
  });

  it.each([['token'], ['access_token'], ['Auth'], ['apiKey'], ['%74oken']])('refuses a token in the URL (?%s=…) with 400 and never logs its value', async (key) => {
    const h = await harness();
    const outcome = await rawUpgrade(h.port, `${WS_PATH}?${key}=${TOKEN}`, { Host: goodHost(h.port) });
    expect(outcome.status).toBe(400);
    expect(outcome.body).not.toContain(TOKEN);
    expect(h.security).toHaveLength(1);
    expect(JSON.stringify(h.security)).not.toContain(TOKEN);
    expect(h.transport.connections).toBe(0);
  });

  it.each([['/'], ['/ws/'], ['/wss'], ['/WS'], ['/api/ws']])('refuses the wrong path %s', async (path) => {
    const h = await harness();
    const outcome = await rawUpgrade(h.port, path, { Host: goodHost(h.port) });
    expect(outcome.status).toBe(400);
    expect(outcome.body).toContain(WS_PATH);
    expect(h.security[0]?.[0]).toBe('control.upgrade_refused');
  });

  it.each([['http://[/ws'], ['http://a:99999/ws']])('refuses an unparseable request target %s without crashing, and keeps serving', async (target) => {
    const h = await harness();
    const outcome = await rawUpgrade(h.port, target, { Host: goodHost(h.port) });
    expect(outcome.status).toBe(400);
    expect(h.security[0]?.[0]).toBe('control.upgrade_refused');
    const client = await Client.authed(h.url);
    expect((await client.call(1, 'runtime.info')).result.ok).toBe(true);
  });

  it('refuses new upgrades with 403 after stopAccepting(), while open sockets keep working', async () => {
    const h = await harness();
    const client = await Client.authed(h.url);
    h.transport.stopAccepting();
    const outcome = await rawUpgrade(h.port, WS_PATH, { Host: goodHost(h.port) });
    expect(outcome.status).toBe(403);
    expect(h.security.at(-1)?.[1].reason).toContain('shutting down');
    expect((await client.call(2, 'runtime.info')).result.ok).toBe(true);
  });
});

describe('WebSocket authentication', () => {
  it('closes with 4001 when no auth message arrives within the timeout', async () => {
    const h = await harness({ authTimeoutMs: 150 });
    const client = await Client.open(h.url);
    const closed = await client.closed;
    expect(closed.code).toBe(WS_CLOSE_UNAUTHORIZED);
    expect(client.all).toEqual([]);
    expect(h.security).toEqual([['control.auth_failed', expect.objectContaining({ peer: expect.any(String) })]]);
  });

  it('closes with 4001 on a wrong token, sends nothing back, and reports it', async () => {
    const h = await harness();
    const client = await Client.open(h.url);
    client.sendJson({ type: 'auth', token: TOKEN.slice(0, -1) + 'X' });
    expect((await client.closed).code).toBe(WS_CLOSE_UNAUTHORIZED);
    expect(client.all).toEqual([]);
    expect(h.security).toEqual([['control.auth_failed', expect.objectContaining({ reason: 'wrong token' })]]);
    expect(JSON.stringify(h.security)).not.toContain(TOKEN.slice(0, -1));
  });

  it.each([
    ['a prefix of the token', { type: 'auth', token: TOKEN.slice(0, 10) }],
    ['the token plus a suffix', { type: 'auth', token: TOKEN + 'x' }],
    ['an over-long token', { type: 'auth', token: 'x'.repeat(513) }],
    ['an empty token', { type: 'auth', token: '' }],
    ['a non-string token', { type: 'auth', token: 12345 }],
    ['an auth frame with extra keys', { type: 'auth', token: TOKEN, as: 'admin' }],
    ['a call as the first frame', { type: 'call', id: 1, name: 'runtime.info', args: {} }],
    ['a frame without type', { token: TOKEN }],
  ])('closes with 4001 when the first frame is %s', async (_label, frame) => {
    const h = await harness();
    const client = await Client.open(h.url);
    client.sendJson(frame);
    expect((await client.closed).code).toBe(WS_CLOSE_UNAUTHORIZED);
    expect(client.all).toEqual([]);
    expect(h.dispatched).toEqual([]);
    expect(h.security.map((e) => e[0])).toEqual(['control.auth_failed']);
  });

  it('closes with 4001 when the first frame is not JSON or is binary (even if it carries the token)', async () => {
    const h = await harness();
    const a = await Client.open(h.url);
    a.ws.send(`auth ${TOKEN}`);
    const b = await Client.open(h.url);
    b.ws.send(Buffer.from(JSON.stringify({ type: 'auth', token: TOKEN })), { binary: true });
    expect((await a.closed).code).toBe(WS_CLOSE_UNAUTHORIZED);
    expect((await b.closed).code).toBe(WS_CLOSE_UNAUTHORIZED);
    expect(a.all).toEqual([]);
    expect(b.all).toEqual([]);
  });

  it('ignores frames pipelined after a rejected auth (no further guesses on the same socket)', async () => {
    const h = await harness();
    const client = await Client.open(h.url);
    for (let i = 0; i < 5; i++) client.sendJson({ type: 'auth', token: `guess-${i}` });
    client.sendJson({ type: 'auth', token: TOKEN });
    client.sendJson({ type: 'call', id: 1, name: 'runtime.info' });
    expect((await client.closed).code).toBe(WS_CLOSE_UNAUTHORIZED);
    expect(client.all).toEqual([]);
    expect(h.dispatched).toEqual([]);
    expect(h.security.filter((e) => e[0] === 'control.auth_failed')).toHaveLength(1);
    expect(h.bus.size).toBe(0);
  });

  it('answers the right token with ready, and the auth timer no longer fires', async () => {
    const h = await harness({ authTimeoutMs: 100 });
    const client = await Client.open(h.url);
    client.sendJson({ type: 'auth', token: TOKEN });
    expect(await client.next()).toEqual({ type: 'ready', serverVersion: '9.9.9-test' });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    const result = await client.call('r1', 'runtime.info');
    expect(result).toEqual({ type: 'result', id: 'r1', result: { ok: true, value: info } });
    expect(h.dispatched).toEqual([{ name: 'runtime.info', ctx: { transport: 'websocket', peer: '127.0.0.1', session: expect.stringMatching(/^session-[0-9a-f-]{36}$/), ended: expect.any(AbortSignal) } }]);
    expect(h.security).toEqual([]);
  });
});

describe('WebSocket calls after auth', () => {
  it('echoes string and numeric ids', async () => {
    const h = await harness();
    const client = await Client.authed(h.url);
    expect((await client.call('abc', 'audit.list', { limit: 1 })).id).toBe('abc');
    const numeric = await client.call(77, 'audit.list');
    expect(numeric.id).toBe(77);
    expect(numeric.result).toEqual({ ok: true, value: { entries: [entry], total: 1, head: { index: 3, hash: entry.hash } } });
  });

  it('answers malformed traffic with an error result and stays usable', async () => {
    const h = await harness();
    const client = await Client.authed(h.url);
    const cases: Array<{ send: () => void; id: string | number | null; code: string; contains?: string }> = [
      { send: () => client.ws.send('this is not json'), id: null, code: ErrorCode.BadRequest, contains: 'JSON' },
      { send: () => client.ws.send('{"id":7,'), id: null, code: ErrorCode.BadRequest },
      { send: () => client.sendJson({ id: 7, name: 'runtime.info' }), id: 7, code: ErrorCode.BadRequest },
      { send: () => client.sendJson(null), id: null, code: ErrorCode.BadRequest },
      { send: () => client.sendJson([1, 2, 3]), id: null, code: ErrorCode.BadRequest },
      { send: () => client.sendJson('runtime.info'), id: null, code: ErrorCode.BadRequest },
      { send: () => client.sendJson({ type: 'call', id: 'x1', name: 'runtime.info', extra: true }), id: 'x1', code: ErrorCode.BadRequest },
      { send: () => client.sendJson({ type: 'call', name: 'runtime.info' }), id: null, code: ErrorCode.BadRequest },
      { send: () => client.sendJson({ type: 'call', id: 'y'.repeat(65), name: 'runtime.info' }), id: null, code: ErrorCode.BadRequest },
      { send: () => client.sendJson({ type: 'auth', token: TOKEN }), id: null, code: ErrorCode.BadRequest },
      { send: () => client.sendJson({ type: 'call', id: 'u1', name: 'admin.shell' }), id: 'u1', code: ErrorCode.UnknownCall },
      { send: () => client.sendJson({ type: 'call', id: 'u2', name: '__proto__' }), id: 'u2', code: ErrorCode.UnknownCall },
      { send: () => client.sendJson({ type: 'call', id: 'a1', name: 'audit.list', args: { limit: 0 } }), id: 'a1', code: ErrorCode.InvalidArgs, contains: 'args.limit' },
      { send: () => client.sendJson({ type: 'call', id: 'a2', name: 'audit.list', args: { limit: 5, where: '1=1' } }), id: 'a2', code: ErrorCode.InvalidArgs, contains: 'where' },
      { send: () => client.sendJson({ type: 'call', id: 'a3', name: 'runtime.info', args: 'all' }), id: 'a3', code: ErrorCode.InvalidArgs },
      { send: () => client.ws.send(Buffer.from('{"type":"call","id":1,"name":"runtime.info"}'), { binary: true }), id: null, code: ErrorCode.BadRequest, contains: 'binary' },
    ];
    for (const c of cases) {
      c.send();
      const frame = await client.next();
      expect(frame.type).toBe('result');
      expect(frame.id).toBe(c.id);
      expect(frame.result.ok).toBe(false);
      expect(frame.result.error.code).toBe(c.code);
      if (c.contains) expect(frame.result.error.message).toContain(c.contains);
    }
    expect(h.dispatched).toEqual([]);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    expect((await client.call('after', 'runtime.info')).result).toEqual({ ok: true, value: info });
  });

  it('turns a throwing handler into E_INTERNAL without a stack trace, and stays usable', async () => {
    const h = await harness({
      handlers: {
        'audit.verify': () => {
          throw new TypeError("Cannot read properties of undefined (reading 'hash')");
        },
      },
    });
    const client = await Client.authed(h.url);
    const frame = await client.call('v', 'audit.verify');
    expect(frame.result.ok).toBe(false);
    expect(frame.result.error.code).toBe(ErrorCode.Internal);
    expect(frame.result.error.message).not.toMatch(/TypeError|Cannot read|\.ts:\d+|\n\s+at /);
    expect((await client.call('after', 'runtime.info')).result.ok).toBe(true);
  });

  it('accepts a message of exactly 1 MiB', async () => {
    const h = await harness();
    const client = await Client.authed(h.url);
    const shell = JSON.stringify({ type: 'call', id: 'big', name: 'runtime.info', args: { pad: '' } });
    const frame = shell.replace('"pad":""', `"pad":"${'p'.repeat(WS_MAX_MESSAGE_BYTES - shell.length)}"`);
    expect(Buffer.byteLength(frame)).toBe(WS_MAX_MESSAGE_BYTES);
    client.ws.send(frame);
    const result = await client.next();
    expect(result.id).toBe('big');
    expect(result.result.error.code).toBe(ErrorCode.InvalidArgs);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes an oversized message (> 1 MiB) with 1009 and keeps serving new connections', async () => {
    const h = await harness();
    const client = await Client.authed(h.url);
    client.ws.send('x'.repeat(WS_MAX_MESSAGE_BYTES + 1));
    expect((await client.closed).code).toBe(1009);
    const fresh = await Client.authed(h.url);
    expect((await fresh.call(1, 'runtime.info')).result.ok).toBe(true);
  });

  it('closes an oversized message sent before auth with 1009 too', async () => {
    const h = await harness();
    const client = await Client.open(h.url);
    client.ws.send(Buffer.alloc(WS_MAX_MESSAGE_BYTES + 1024, 0x61));
    expect((await client.closed).code).toBe(1009);
    expect(h.dispatched).toEqual([]);
    expect((await (await Client.authed(h.url)).call(1, 'runtime.info')).result.ok).toBe(true);
  });
});

describe('WebSocket rate limit', () => {
  it('refuses the 6th rapid call with E_RATE_LIMITED, echoes its id, reports once, and refills with the clock', async () => {
    const h = await harness({ messagesPerMinute: 5 });
    const client = await Client.authed(h.url);
    for (let i = 1; i <= 7; i++) client.sendJson({ type: 'call', id: `c${i}`, name: 'runtime.info' });
    const frames: Frame[] = [];
    for (let i = 1; i <= 7; i++) frames.push(await client.next());
    const byId = new Map(frames.map((f: Frame) => [f.id, f.result]));
    for (let i = 1; i <= 5; i++) expect(byId.get(`c${i}`)?.ok).toBe(true);
    for (const id of ['c6', 'c7']) {
      expect(byId.get(id)?.ok).toBe(false);
      expect(byId.get(id)?.error.code).toBe(ErrorCode.RateLimited);
    }
    expect(h.dispatched).toHaveLength(5);
    expect(h.security).toEqual([['control.rate_limited', expect.objectContaining({ limit_per_minute: 5 })]]);

    h.clock.t += 12_000; // one token at 5 per minute
    expect((await client.call('c8', 'runtime.info')).result.ok).toBe(true);
    const refused = await client.call('c9', 'runtime.info');
    expect(refused.result.error.code).toBe(ErrorCode.RateLimited);
    expect(h.security.filter((e) => e[0] === 'control.rate_limited')).toHaveLength(1);
  });

  it('counts malformed and binary frames against the limit too', async () => {
    const h = await harness({ messagesPerMinute: 2 });
    const client = await Client.authed(h.url);
    client.ws.send('garbage');
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    client.ws.send('more garbage');
    const codes = [await client.next(), await client.next(), await client.next()].map((f: Frame) => f.result.error.code);
    expect(codes).toEqual([ErrorCode.BadRequest, ErrorCode.BadRequest, ErrorCode.RateLimited]);
  });

  it('keeps one bucket per connection', async () => {
    const h = await harness({ messagesPerMinute: 1 });
    const a = await Client.authed(h.url);
    expect((await a.call(1, 'runtime.info')).result.ok).toBe(true);
    expect((await a.call(2, 'runtime.info')).result.error.code).toBe(ErrorCode.RateLimited);
    const b = await Client.authed(h.url);
    expect((await b.call(1, 'runtime.info')).result.ok).toBe(true);
  });
});

describe('WebSocket events', () => {
  it('delivers EventBus events to authenticated sockets as {type:"event", name, payload}', async () => {
    const h = await harness();
    const client = await Client.authed(h.url);
    expect(h.bus.size).toBe(1);
    h.bus.publish('audit.appended', entry);
    expect(await client.next()).toEqual({ type: 'event', name: 'audit.appended', payload: entry });
  });

  it('sends no event to a socket that has not authenticated', async () => {
    const h = await harness();
    const client = await Client.open(h.url);
    expect(h.bus.size).toBe(0);
    h.bus.publish('audit.appended', entry);
    h.bus.publish('runtime.stopping', { reason: 'x' });
    // Frames are ordered: had the events been sent, they would arrive before `ready`.
    client.sendJson({ type: 'auth', token: TOKEN });
    expect((await client.next()).type).toBe('ready');
    h.bus.publish('runtime.stopping', { reason: 'after' });
    expect(await client.next()).toEqual({ type: 'event', name: 'runtime.stopping', payload: { reason: 'after' } });
    expect(client.all.filter((f: Frame) => f.type === 'event')).toHaveLength(1);
  });

  it('a socket that failed auth never subscribes, and a closed socket unsubscribes', async () => {
    const h = await harness();
    const bad = await Client.open(h.url);
    bad.sendJson({ type: 'auth', token: 'nope' });
    await bad.closed;
    expect(h.bus.size).toBe(0);
    const good = await Client.authed(h.url);
    expect(h.bus.size).toBe(1);
    good.ws.close();
    await good.closed;
    await expect.poll(() => h.bus.size).toBe(0);
    expect(() => h.bus.publish('runtime.stopping', { reason: 'nobody listens' })).not.toThrow();
  });
});

describe('WebSocket shutdown', () => {
  it('closeAll() closes every socket with 1001, authenticated or not, then refuses upgrades', async () => {
    const h = await harness();
    const a = await Client.authed(h.url);
    const b = await Client.authed(h.url);
    const pending = await Client.open(h.url);
    expect(h.transport.connections).toBe(3);
    await h.transport.closeAll('runtime stopping');
    const codes = await Promise.all([a.closed, b.closed, pending.closed]);
    expect(codes.map((c) => c.code)).toEqual([WS_CLOSE_GOING_AWAY, WS_CLOSE_GOING_AWAY, WS_CLOSE_GOING_AWAY]);
    expect(codes[0]?.reason).toBe('runtime stopping');
    expect(h.transport.connections).toBe(0);
    expect((await rawUpgrade(h.port, WS_PATH, { Host: goodHost(h.port) })).status).toBe(403);
  });
});
