import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LineSplitter, ndjsonFrame } from '../../src-shared/contract/ndjson.js';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';
import { EventBus } from './event-bus.js';
import { LOCAL_SOCKET_MAX_BUFFERED, LOCAL_SOCKET_MAX_CONNECTIONS, LocalSocketTransport, type LocalSocketLimits } from './local-socket-transport.js';
import type { ControlRouter } from './router.js';

const tempDir = useTempDirs('silas-sock-');
const TOKEN = 'ask-token-for-tests';
const open: LocalSocketTransport[] = [];

afterEach(async () => {
  for (const transport of open.splice(0)) await transport.close(0);
});

async function start(limits: Partial<LocalSocketLimits> = {}) {
  const path = join(tempDir(), 'control.sock');
  const router = { dispatch: (name: unknown, args: unknown) => Promise.resolve({ ok: true, value: { name, args } }) } as unknown as ControlRouter;
  const refusals: Record<string, string | number>[] = [];
  const transport = new LocalSocketTransport({
    path,
    token: TOKEN,
    router,
    events: new EventBus(),
    messagesPerMinute: 100,
    serverVersion: 'test',
    limits,
    onSecurityEvent: (event, data) => event === 'control.connection_refused' && refusals.push(data),
  });
  await transport.start();
  open.push(transport);
  return { path, transport, refusals };
}

/** A raw client: every frame the runtime sends it, and a promise of its closing. */
function rawClient(path: string) {
  const socket: Socket = connect(path);
  const frames: { type: string; code?: number; reason?: string }[] = [];
  const lines = new LineSplitter((line) => frames.push(JSON.parse(line) as { type: string }));
  socket.on('data', (chunk: Buffer) => lines.push(chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, frames, closed, connected };
}

// The attack of docs/control-plane.md, Limits: many connections, each holding an unfinished 1 MiB frame.
describe('local-socket limits in size and time', () => {
  it('200 connections holding unfinished 1 MiB frames: refused beyond the connection cap, closed beyond the byte budget and at the frame deadline; what is held never exceeds the budget', async () => {
    const { path, transport, refusals } = await start({ frameDeadlineMs: 1_000 });
    // Almost 1 MiB of a call frame, never finished with its newline; one buffer shared by every write.
    const partial = Buffer.from(`{"type":"call","id":1,"name":"runtime.info","args":"${'x'.repeat(1024 * 1024 - 200)}`);
    const clients = Array.from({ length: 200 }, () => rawClient(path));
    await Promise.all(clients.map((client) => Promise.race([client.connected, client.closed])));
    for (const client of clients) {
      if (client.socket.destroyed) continue;
      client.socket.write(ndjsonFrame({ type: 'auth', token: TOKEN }));
      client.socket.write(partial);
    }
    await Promise.all(clients.map((client) => client.closed));
    // The runtime's side of the last connections closes just after the clients see it.
    await vi.waitFor(() => expect(transport.stats.connections).toBe(0));

    const stats = transport.stats;
    expect(stats.peakBufferedBytes).toBeGreaterThan(0);
    expect(stats.peakBufferedBytes).toBeLessThanOrEqual(LOCAL_SOCKET_MAX_BUFFERED);
    expect(stats).toMatchObject({ connections: 0, bufferedBytes: 0 });
    const closedWith = (code: number) => clients.filter((client) => client.frames.some((frame) => frame.type === 'closed' && frame.code === code)).length;
    // Refused at once (the connection cap) or as they went over the byte budget.
    expect(closedWith(1013)).toBeGreaterThanOrEqual(200 - LOCAL_SOCKET_MAX_CONNECTIONS);
    // Those the byte budget let hold a frame were closed when its deadline passed.
    expect(closedWith(1008)).toBeGreaterThan(0);
    // Every connection ended by a limit, and each refusal reported for the ledger.
    expect(stats.refused).toBe(200);
    expect(refusals).toHaveLength(200);
    // Which limit ends a connection depends on when the runtime reads it; the budget and the deadline always do some.
    const reasons = new Set(refusals.map((refusal) => refusal.reason));
    expect(reasons).toContain('unfinished frames over the byte budget of all connections');
    expect(reasons).toContain('a frame not finished within 1000 ms');
    for (const reason of reasons) {
      expect([`more than ${LOCAL_SOCKET_MAX_CONNECTIONS} connections open at once`, 'unfinished frames over the byte budget of all connections', 'a frame not finished within 1000 ms']).toContain(reason);
    }
  }, 60_000);

  it('a first frame longer than an auth frame is not buffered up to the call cap', async () => {
    const { path, transport, refusals } = await start();
    const client = rawClient(path);
    await client.connected;
    client.socket.write(`{"type":"auth","token":"${'t'.repeat(64 * 1024)}`);
    await client.closed;
    expect(client.frames).toContainEqual({ type: 'closed', code: 1009, reason: 'frame too large' });
    expect(transport.stats.peakBufferedBytes).toBeLessThanOrEqual(4 * 1024);
    expect(refusals).toEqual([{ peer: 'local', reason: 'a first (auth) frame longer than the cap', limit: 4 * 1024 }]);
  });

  it('a connection closed for its credential is not read any further', async () => {
    const { path, transport } = await start();
    const client = rawClient(path);
    await client.connected;
    client.socket.write(ndjsonFrame({ type: 'auth', token: 'wrong' }));
    client.socket.write('x'.repeat(512 * 1024));
    await client.closed;
    expect(client.frames).toContainEqual({ type: 'closed', code: 4001, reason: 'unauthorized' });
    expect(transport.stats).toMatchObject({ connections: 0, bufferedBytes: 0 });
  });
});

describe('local-socket limits in the runtime', () => {
  it('connections beyond the cap are refused and audited as control.connection_refused', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger });
    await runtime.start();
    const control = JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as { socket: string };
    const clients = Array.from({ length: LOCAL_SOCKET_MAX_CONNECTIONS + 5 }, () => rawClient(control.socket));
    await Promise.all(clients.map((client) => Promise.race([client.connected, client.closed])));
    const refusedAtOnce = () => clients.filter((client) => client.frames.some((frame) => frame.type === 'closed' && frame.code === 1013));
    await vi.waitFor(() => expect(refusedAtOnce().length).toBeGreaterThanOrEqual(5));
    const refused = refusedAtOnce();
    for (const client of clients) client.socket.destroy();
    await Promise.all(clients.map((client) => client.closed));
    expect(refused.length).toBeGreaterThanOrEqual(5);
    const entries = runtime.audit.list(undefined, 500).entries.filter((entry) => entry.event === 'control.connection_refused');
    expect(entries.length).toBeGreaterThanOrEqual(5);
    expect(entries[0]!.data).toEqual({ peer: 'local', reason: `more than ${LOCAL_SOCKET_MAX_CONNECTIONS} connections open at once`, limit: LOCAL_SOCKET_MAX_CONNECTIONS });
    await runtime.stop('test');
  }, 60_000);
});
