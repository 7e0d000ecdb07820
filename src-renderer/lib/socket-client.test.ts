import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket } from '../testing/fake-websocket.js';
import type { ConnectionState } from './transport.js';
import { CockpitSocketClient, webSocketUrl } from './socket-client.js';

function connect(): { transport: CockpitSocketClient; states: ConnectionState[] } {
  const transport = new CockpitSocketClient({
    url: 'ws://127.0.0.1:7777/ws',
    token: 'tok-123',
    createSocket: (url) => new FakeWebSocket(url),
  });
  const states: ConnectionState[] = [];
  transport.onState((state) => states.push(state));
  return { transport, states };
}

describe('webSocketUrl', () => {
  it('uses ws for http and wss for https, always on /ws without any query', () => {
    expect(webSocketUrl({ protocol: 'http:', host: '127.0.0.1:7777' })).toBe('ws://127.0.0.1:7777/ws');
    expect(webSocketUrl({ protocol: 'https:', host: 'silas.example:443' })).toBe('wss://silas.example:443/ws');
  });
});

describe('CockpitSocketClient', () => {
  beforeEach(() => {
    FakeWebSocket.reset();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the auth frame first and never puts the token in the URL', () => {
    const { transport } = connect();
    const socket = FakeWebSocket.latest();
    expect(socket.url).toBe('ws://127.0.0.1:7777/ws');
    expect(socket.url).not.toContain('tok-123');
    expect(transport.state).toBe('connecting');
    socket.serverOpen();
    expect(socket.sent).toEqual([{ type: 'auth', token: 'tok-123' }]);
  });

  it('becomes connected on ready and routes results by id', async () => {
    const { transport, states } = connect();
    const socket = FakeWebSocket.latest();
    socket.serverReady();
    expect(states).toEqual(['connected']);

    const first = transport.call('runtime.info', {});
    const second = transport.call('audit.list', { limit: 5 });
    expect(socket.sent.slice(1)).toEqual([
      { type: 'call', id: 1, name: 'runtime.info', args: {} },
      { type: 'call', id: 2, name: 'audit.list', args: { limit: 5 } },
    ]);
    socket.serverSend({ type: 'result', id: 2, result: { ok: true, value: 'second' } });
    socket.serverSend({ type: 'result', id: 1, result: { ok: false, error: { code: 'E_X', message: 'nope' } } });
    await expect(second).resolves.toEqual({ ok: true, value: 'second' });
    await expect(first).resolves.toEqual({ ok: false, error: { code: 'E_X', message: 'nope' } });
  });

  it('delivers server events to listeners and ignores malformed frames', () => {
    const { transport } = connect();
    const socket = FakeWebSocket.latest();
    socket.serverReady();
    const seen: [string, unknown][] = [];
    transport.onEvent((name, payload) => seen.push([name, payload]));
    socket.onmessage?.({ data: 'not json' });
    socket.serverSend({ type: 'mystery' });
    socket.serverSend({ type: 'event', name: 'audit.appended', payload: { index: 3 } });
    expect(seen).toEqual([['audit.appended', { index: 3 }]]);
  });

  it('on close 4001 becomes unauthorised and does not reconnect', async () => {
    const { transport, states } = connect();
    const socket = FakeWebSocket.latest();
    socket.serverReady();
    const pending = transport.call('runtime.info', {});
    socket.serverClose(4001);
    expect(states).toEqual(['connected', 'unauthorised']);
    await expect(pending).resolves.toMatchObject({ ok: false, error: { code: 'E_UNAVAILABLE' } });
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('on any other close fails pending calls with E_UNAVAILABLE and reconnects with backoff', async () => {
    const { transport, states } = connect();
    FakeWebSocket.latest().serverReady();
    const pending = transport.call('audit.verify', {});
    FakeWebSocket.latest().serverClose(1006);
    expect(states).toEqual(['connected', 'reconnecting']);
    await expect(pending).resolves.toEqual({
      ok: false,
      error: { code: 'E_UNAVAILABLE', message: expect.stringContaining('dropped') },
    });

    vi.advanceTimersByTime(249);
    expect(FakeWebSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(2);

    // A second failure before ready waits twice as long.
    FakeWebSocket.latest().serverError();
    vi.advanceTimersByTime(499);
    expect(FakeWebSocket.instances).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(3);

    const socket = FakeWebSocket.latest();
    socket.serverReady();
    expect(socket.sent[0]).toEqual({ type: 'auth', token: 'tok-123' });
    expect(transport.state).toBe('connected');
    expect(states.at(-1)).toBe('connected');
  });

  it('caps the backoff at 5 s and resets it after a successful ready', () => {
    connect();
    for (let attempt = 0; attempt < 7; attempt += 1) {
      FakeWebSocket.latest().serverClose(1006);
      vi.runOnlyPendingTimers();
    }
    const before = FakeWebSocket.instances.length;
    FakeWebSocket.latest().serverClose(1006);
    vi.advanceTimersByTime(4999);
    expect(FakeWebSocket.instances).toHaveLength(before);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(before + 1);

    FakeWebSocket.latest().serverReady();
    FakeWebSocket.latest().serverClose(1001);
    vi.advanceTimersByTime(250);
    expect(FakeWebSocket.instances).toHaveLength(before + 2);
  });

  it('answers calls made while disconnected with E_UNAVAILABLE without sending', async () => {
    const { transport } = connect();
    const socket = FakeWebSocket.latest();
    socket.serverOpen();
    await expect(transport.call('runtime.info', {})).resolves.toMatchObject({ ok: false, error: { code: 'E_UNAVAILABLE' } });
    expect(socket.sent).toEqual([{ type: 'auth', token: 'tok-123' }]);
  });

  it('close() stops reconnecting', () => {
    const { transport } = connect();
    const socket = FakeWebSocket.latest();
    socket.serverReady();
    transport.close();
    expect(socket.closedWith).toBe(1000);
    socket.serverClose(1000);
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });
});

describe('CockpitSocketClient: secure input (§8.1)', () => {
  beforeEach(() => FakeWebSocket.reset());

  function withFetch(respond: (url: string, init: RequestInit) => Response) {
    const requests: { url: string; init: RequestInit }[] = [];
    const transport = new CockpitSocketClient({
      url: 'wss://silas.example:8443/ws',
      token: 'tok-123',
      createSocket: (url) => new FakeWebSocket(url),
      fetch: (input, init) => {
        requests.push({ url: String(input), init: init! });
        return Promise.resolve(respond(String(input), init!));
      },
    });
    return { transport, requests };
  }

  it('POSTs the secret to /secrets/NAME on the same origin with the credential as a bearer token, never over the socket', async () => {
    const { transport, requests } = withFetch(() => new Response('{"stored":true}', { status: 200 }));
    FakeWebSocket.latest().serverOpen();
    expect(await transport.storeSecret('openrouter-key', 'sk-or-secret')).toEqual({ ok: true, value: { stored: true } });
    expect(requests).toEqual([
      {
        url: 'https://silas.example:8443/secrets/openrouter-key',
        init: expect.objectContaining({ method: 'POST', body: '{"value":"sk-or-secret"}', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer tok-123' }, credentials: 'omit' }),
      },
    ]);
    expect(JSON.stringify(FakeWebSocket.latest().sent)).not.toContain('sk-or-secret');
  });

  it("turns a refusal into an error envelope with the runtime's message", async () => {
    const { transport } = withFetch(() => new Response('value: the secret is empty; paste the key\n', { status: 400 }));
    expect(await transport.storeSecret('k', 'x')).toEqual({ ok: false, error: { code: 'E_INVALID_ARGS', message: 'value: the secret is empty; paste the key' } });
    const refused = withFetch(() => new Response('Unauthorized', { status: 401 }));
    expect(await refused.transport.storeSecret('k', 'x')).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
  });
});
