import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WS_CLOSE_UNAUTHORIZED } from '../../../src-shared/contract/wire.js';
import { ErrorCode } from '../../../src-shared/errors.js';
import { runSilasChild, spawnSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

// `silas open` as a person runs it: real processes and the real OS keyring (scripts/with-keyring.sh).
// The tab that held the cockpit is gone; a terminal that reaches the keyring gets the link back.
const tempDir = useTempDirs('silas-open-process-');
const children: Array<ReturnType<typeof spawnSilas>> = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null) continue;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
});

async function startHeadless(home: string) {
  const child = spawnSilas(['start', '--headless', '--port', '0', '--home', home]);
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const deadline = Date.now() + 30_000;
  while (!/^Cockpit: /m.test(out)) {
    if (child.exitCode !== null) throw new Error(`silas start exited ${child.exitCode}: ${err}`);
    if (Date.now() > deadline) throw new Error(`silas start not ready: ${out} ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const control = JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as { url: string; wsUrl: string; token: string };
  return { control, startLine: /^Cockpit: (\S+)$/m.exec(out)![1]! };
}

/** Authenticates on the cockpit WebSocket as the page would; returns the first frame's type, or the close code. */
async function cockpitSession(wsUrl: string, origin: string, token: string) {
  const ws = new WebSocket(wsUrl, { origin });
  const frames: Array<{ type: string; id?: unknown; result?: { ok: boolean; error?: { code: string } } }> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    frames.push(JSON.parse(String(data)));
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = once(ws, 'close') as Promise<[number, Buffer]>;
  await once(ws, 'open');
  ws.send(JSON.stringify({ type: 'auth', token }));
  const next = async (match: (f: (typeof frames)[number]) => boolean) => {
    for (;;) {
      const found = frames.find(match);
      if (found) return found;
      await Promise.race([new Promise<void>((r) => waiters.push(r)), closed]);
      if (ws.readyState !== WebSocket.OPEN && !frames.some(match)) return null;
    }
  };
  return { ws, closed, next };
}

describe('silas open (real processes, OS keyring)', () => {
  it('prints the link again; its credential opens a cockpit session that may decide, while control.json\'s cannot', async () => {
    const home = join(tempDir(), 'home');
    const rt = await startHeadless(home);

    const result = await runSilasChild(['open', '--home', home, '--print']);
    expect(result.err).not.toMatch(/silas open:/);
    expect(result.code).toBe(0);
    const link = /^Cockpit: (\S+)$/m.exec(result.out)?.[1];
    // The same cockpit, with a fresh credential of its own (the start link stays good too).
    expect(link!.split('#')[0]).toBe(rt.startLine.split('#')[0]);
    expect(link).not.toBe(rt.startLine);
    const token = new URL(link!).hash.replace(/^#token=/, '');

    const origin = new URL(rt.control.url).origin;
    const cockpit = await cockpitSession(rt.control.wsUrl, origin, token);
    expect(await cockpit.next((f) => f.type === 'ready')).toMatchObject({ type: 'ready' });
    // A decide-capability call passes the capability check (and fails only on its unknown id).
    cockpit.ws.send(JSON.stringify({ type: 'call', id: 'd1', name: 'approvals.revokeStanding', args: { id: 'no-such-grant' } }));
    const decided = await cockpit.next((f) => f.type === 'result' && f.id === 'd1');
    expect(decided?.result?.ok).toBe(false);
    expect(decided?.result?.error?.code).not.toBe(ErrorCode.Unauthorized);
    cockpit.ws.close();

    const started = await cockpitSession(rt.control.wsUrl, origin, new URL(rt.startLine).hash.replace(/^#token=/, ''));
    expect(await started.next((f) => f.type === 'ready')).toMatchObject({ type: 'ready' });
    started.ws.close();

    // The ask credential from control.json is refused at auth.
    const thief = await cockpitSession(rt.control.wsUrl, origin, rt.control.token);
    const [code] = await thief.closed;
    expect(code).toBe(WS_CLOSE_UNAUTHORIZED);
  });
});
