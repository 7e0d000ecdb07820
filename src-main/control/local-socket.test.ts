import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LineSplitter, ndjsonFrame } from '../../src-shared/contract/ndjson.js';
import { useTempDirs } from '../testing/temp.js';
import { EventBus } from './event-bus.js';
import { LocalSocketClient } from './local-socket-client.js';
import { LOCAL_SOCKET_MAX_LINE, LocalSocketTransport } from './local-socket-transport.js';
import type { ControlRouter } from './router.js';

const tempDir = useTempDirs('silas-sock-');
const TOKEN = 'ask-token-for-tests';
const open: LocalSocketTransport[] = [];

afterEach(async () => {
  for (const transport of open.splice(0)) await transport.close(0);
});

/** Both ends over the shared framer and call core; the router is a stand-in that echoes. */
async function start(): Promise<string> {
  const path = join(tempDir(), 'control.sock');
  const router = { dispatch: (name: unknown, args: unknown) => Promise.resolve({ ok: true, value: { name, args } }) } as unknown as ControlRouter;
  const transport = new LocalSocketTransport({ path, token: TOKEN, router, events: new EventBus(), messagesPerMinute: 100, serverVersion: 'test' });
  await transport.start();
  open.push(transport);
  return path;
}

describe('the local control socket', () => {
  it('carries calls both ways and settles each with its own answer', async () => {
    const client = await LocalSocketClient.connect(await start(), TOKEN);
    const [a, b] = await Promise.all([client.call('audit.verify', {} as never), client.call('runtime.info', {} as never)]);
    expect(a).toEqual({ name: 'audit.verify', args: {} });
    expect(b).toEqual({ name: 'runtime.info', args: {} });
    client.close();
    await expect(client.call('runtime.info', {} as never)).rejects.toMatchObject({ code: 'E_UNAVAILABLE' });
  });

  it('refuses a wrong token as unavailable, with the reason', async () => {
    await expect(LocalSocketClient.connect(await start(), 'wrong')).rejects.toMatchObject({ code: 'E_UNAVAILABLE' });
  });

  it('closes with 1009 when a frame exceeds the cap', async () => {
    const socket = connect(await start());
    const frames: unknown[] = [];
    const lines = new LineSplitter((line) => frames.push(JSON.parse(line)));
    socket.on('data', (chunk: Buffer) => lines.push(chunk));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => undefined);
    socket.write(ndjsonFrame({ type: 'auth', token: TOKEN }));
    socket.write(`{"type":"call","id":1,"name":"runtime.info","args":"${'x'.repeat(LOCAL_SOCKET_MAX_LINE)}`);
    await closed;
    expect(frames).toContainEqual({ type: 'closed', code: 1009, reason: 'frame too large' });
  });
});
