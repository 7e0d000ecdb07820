import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ReviewQueueView } from '../../src-shared/schemas/review.js';
import { buildRuntime } from '../app/runtime.js';
import type { Runtime } from '../app/types.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';
import { LocalSocketClient } from './local-socket-client.js';

/*
 * The flood of Review as it was reproduced (docs/review.md): a process holding the ask credential
 * (HOME/control.json, readable by every proxy and CLI command) opens connections to the local
 * control socket and asks 2,000 questions with every field chosen by it, then the person's real
 * proxy asks. Before the caps and deltas, the real card was the 2,001st and every change pushed
 * the whole queue to each cockpit session.
 */

const tempDir = useTempDirs('silas-review-flood-');
const open: Runtime[] = [];
const sockets: WebSocket[] = [];
const clients: LocalSocketClient[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  for (const client of clients.splice(0)) client.close();
  for (const runtime of open.splice(0)) await runtime.stop('test over');
});

/** The runtime's default cap per requester session (review/ask-caps.ts `ASK_LIMITS`), written out so this file also runs against the code before the caps. */
const ASK_LIMITS = { perSource: 50 };
const FLOOD_SESSIONS = 10;
const ASKS_PER_SESSION = 200;

function ask(client: LocalSocketClient, server: string, n: number): Promise<unknown> {
  const args = { note: `fake ${n}`, padding: 'x'.repeat(400) };
  return client.call('approvals.request', {
    server,
    tool: 'read_file',
    args,
    display: args,
    requestId: n,
    sessionId: `s-${n}`,
    rule: 'ask',
    reason: 'URGENT: the owner already approved this, click Allow',
    policyName: 'workstation',
    timeoutMs: 600_000,
  });
}

describe('a requester holding the ask credential floods Review over the local socket', () => {
  it('is capped per session and audited; the real proxy card stays visible; each cockpit session gets small deltas, not the queue', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'headless', port: 0, cockpitDir: null }, { secretStore: new MemorySecretStore(), logger: { info: () => undefined, warn: () => undefined, error: () => undefined } });
    open.push(runtime);
    await runtime.start();

    // The person's cockpit, as a browser tab: every byte of every review event it receives is counted.
    const ws = new WebSocket(runtime.cockpit!.wsUrl, { origin: new URL(runtime.cockpit!.url).origin });
    sockets.push(ws);
    const reviewFrames: number[] = [];
    let ready = false;
    ws.on('message', (data: Buffer) => {
      const text = String(data);
      if (text.includes('"type":"ready"')) ready = true;
      if (text.includes('"name":"review.changed"')) reviewFrames.push(Buffer.byteLength(text));
    });
    await once(ws, 'open');
    ws.send(JSON.stringify({ type: 'auth', token: runtime.cockpit!.token }));
    await expect.poll(() => ready).toBe(true);

    // The attacker: the ask credential from the data home, and as many sessions as it likes.
    const stolen = JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as { socket: string; token: string };
    const refusals: string[] = [];
    const flood = async (session: number) => {
      const client = await LocalSocketClient.connect(stolen.socket, stolen.token);
      clients.push(client);
      for (let i = 0; i < ASKS_PER_SESSION; i += 1) {
        ask(client, 'github', session * ASKS_PER_SESSION + i).catch((error: { code?: string }) => refusals.push(error.code ?? 'unknown'));
      }
    };
    // One session first: its asks beyond the cap are refused at once (they do not wait).
    await flood(0);
    await expect.poll(() => refusals.length, { timeout: 15_000 }).toBe(ASKS_PER_SESSION - ASK_LIMITS.perSource);
    for (let s = 1; s < FLOOD_SESSIONS; s += 1) await flood(s);
    const floodRefused = FLOOD_SESSIONS * (ASKS_PER_SESSION - ASK_LIMITS.perSource);
    await expect.poll(() => refusals.length, { timeout: 30_000 }).toBe(floodRefused);
    expect(new Set(refusals)).toEqual(new Set(['E_RATE_LIMITED']));
    expect(runtime.decisions.pendingCount()).toBe(FLOOD_SESSIONS * ASK_LIMITS.perSource);

    // Audited: one entry per flooding session (then counted, once a minute), naming the cap.
    const refused = runtime.audit.tail(5000).filter((e) => e.event === 'review.ask_refused');
    expect(refused).toHaveLength(FLOOD_SESSIONS);
    expect(refused.every((e) => e.data.cap === 'per_source' && e.data.channel === 'local_requester' && e.data.limit === ASK_LIMITS.perSource)).toBe(true);
    // One frame per admitted card (a refusal changes nothing, so it sends nothing).
    await expect.poll(() => reviewFrames.length).toBe(FLOOD_SESSIONS * ASK_LIMITS.perSource);
    const floodBytes = reviewFrames.reduce((a, b) => a + b, 0);

    // The person's real proxy asks after the flood.
    const proxy = await LocalSocketClient.connect(stolen.socket, stolen.token);
    clients.push(proxy);
    const before = reviewFrames.length;
    const real = ask(proxy, 'files', 999_999);
    real.catch(() => undefined);
    await expect.poll(() => reviewFrames.length).toBe(before + 1);
    const realDelta = reviewFrames.at(-1)!;

    // The first page the cockpit loads shows it among the group heads: one card per source first.
    const page = await runtime.router.dispatch('review.list', { limit: 20 }, { transport: 'websocket' });
    if (!page.ok) throw new Error('review.list failed');
    const view = page.value as ReviewQueueView;
    expect(view.total).toBe(FLOOD_SESSIONS * ASK_LIMITS.perSource + 1);
    const heads = view.cards.slice(0, FLOOD_SESSIONS + 1);
    expect(new Set(heads.map((c) => c.origin?.sourceId)).size).toBe(FLOOD_SESSIONS + 1);
    const realCard = heads.find((c) => c.kind === 'tool_call' && c.details.server === 'files');
    expect(realCard?.origin).toMatchObject({ channel: 'local_requester', taint: 'external' });

    // What one cockpit session receives per change is one card's delta, not the whole queue.
    const whole = Buffer.byteLength(JSON.stringify((await runtime.router.dispatch('review.list', {}, { transport: 'websocket' })) as object));
    expect(realDelta).toBeLessThan(4_096);
    expect(whole).toBeGreaterThan(100 * realDelta);
    expect(Math.max(...reviewFrames)).toBeLessThan(4_096);
    // The whole flood cost the session about one card per admitted ask (before: the whole queue per ask).
    expect(floodBytes).toBeLessThan(FLOOD_SESSIONS * ASK_LIMITS.perSource * 4_096);
  }, 90_000);

  it('sessions that fill the whole queue between them cannot lock out the real proxy: the largest holder gives up its newest question', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'headless', port: 0, cockpitDir: null }, { secretStore: new MemorySecretStore(), logger: { info: () => undefined, warn: () => undefined, error: () => undefined } });
    open.push(runtime);
    await runtime.start();
    const stolen = JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as { socket: string; token: string };
    // 25 sessions of 50 (the cap per session): 1,250 questions for the 1,000 places of the whole queue.
    const answered: unknown[] = [];
    for (let session = 0; session < 25; session += 1) {
      const client = await LocalSocketClient.connect(stolen.socket, stolen.token);
      clients.push(client);
      for (let i = 0; i < 50; i += 1) ask(client, 'github', session * 50 + i).then((answer) => answered.push(answer), (error: unknown) => answered.push(error));
    }
    await expect.poll(() => runtime.decisions.pendingCount() + answered.length, { timeout: 30_000 }).toBe(1_250);
    expect(runtime.decisions.pendingCount()).toBe(1_000);

    const proxy = await LocalSocketClient.connect(stolen.socket, stolen.token);
    clients.push(proxy);
    const real = ask(proxy, 'files', 999_999);
    let realSettled = false;
    real.then(() => (realSettled = true), () => (realSettled = true));
    const view = async () => {
      const page = await runtime.router.dispatch('review.list', {}, { transport: 'websocket' });
      if (!page.ok) throw new Error('review.list failed');
      return page.value as ReviewQueueView;
    };
    await expect.poll(async () => (await view()).cards.some((c) => c.kind === 'tool_call' && c.details.server === 'files'), { timeout: 10_000 }).toBe(true);
    expect(realSettled).toBe(false);
    expect(runtime.decisions.pendingCount()).toBe(1_000);
    // Each place given up is audited under the session that gave it up.
    const evicted = runtime.audit.tail(5000).filter((e) => e.event === 'review.ask_refused' && e.data.cap === 'evicted');
    expect(evicted.length).toBeGreaterThan(0);
  }, 90_000);
});
