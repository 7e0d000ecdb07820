import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WS_CLOSE_UNAUTHORIZED } from '../../../src-shared/contract/wire.js';
import { ErrorCode } from '../../../src-shared/errors.js';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import type { Runtime } from '../../app/types.js';
import { REVOKED_CLOSE_REASON } from '../../control/cockpit-credentials.js';
import { LocalSocketClient } from '../../control/local-socket-client.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { wsTestClients, type Frame, type WsTestClient } from '../../testing/ws-test-client.js';

// Fresh cockpit links and revoking cockpit sessions (docs/control-plane.md "Getting back into the
// cockpit"): each `silas open` hands out a credential of its own, every link stays good until the
// runtime stops or the person signs the others out from the cockpit.
const tempDir = useTempDirs('silas-open-sessions-');
const cleanups: Array<() => void> = [];
let runtime: Runtime | null = null;

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await runtime?.stop('test');
  runtime = null;
});

async function scene() {
  const store = new MemorySecretStore();
  runtime = await buildRuntime({ home: join(tempDir(), 'home'), mode: 'headless', port: 0, cockpitDir: null, auditPollMs: 20 }, { secretStore: store, logger: silentLogger });
  await runtime.start();
  const r = runtime;
  const clients = wsTestClients((cleanup) => cleanups.push(cleanup), { token: r.cockpit!.token });
  /** `silas open --print`, as a person runs it; the credential of the link it printed. */
  const open = async (): Promise<string> => {
    const result = await runSilas(['open', '--home', r.home, '--print'], { secretStore: store });
    expect(result.code, result.err).toBe(0);
    const printed = /^Cockpit: http:\/\/127\.0\.0\.1:\d+\/#token=([A-Za-z0-9_-]+)$/m.exec(result.out);
    expect(printed, result.out).not.toBeNull();
    return printed![1]!;
  };
  /** Whether `token` opens a cockpit session now: `ready`, or the 4001 close. */
  const refused = async (token: string): Promise<boolean> => {
    const client = await clients.open(r.cockpit!.wsUrl);
    client.sendJson({ type: 'auth', token });
    const answer = await Promise.race([client.next(), client.closed]);
    client.ws.terminate();
    if ((answer as Frame).type === 'ready') return false;
    expect(answer).toMatchObject({ code: WS_CLOSE_UNAUTHORIZED });
    return true;
  };
  /** Secure input (`POST /secrets/NAME`) with `token` as the bearer: its HTTP status. */
  const secretStatus = async (token: string): Promise<number> => {
    const origin = r.cockpit!.url.replace(/\/$/, '');
    const response = await fetch(`${origin}/secrets/probe-key`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin, Authorization: `Bearer ${token}` }, body: JSON.stringify({ value: 'sk-probe-value-1234' }) });
    return response.status;
  };
  const control = JSON.parse(readFileSync(join(r.home, 'control.json'), 'utf8')) as { socket: string; token: string };
  return { r, clients, open, refused, secretStatus, control };
}

let calls = 0;
/** A call's result frame; events pushed meanwhile (audit entries) are passed over. */
async function callFor(client: WsTestClient, name: string, args: unknown = {}): Promise<Frame> {
  const id = ++calls;
  client.sendJson({ type: 'call', id, name, args });
  for (;;) {
    const frame = await client.next();
    if (frame.type === 'result' && frame.id === id) return frame;
  }
}

describe('silas open: a fresh cockpit link each time', () => {
  it('two runs print two different links; both open the cockpit, and the link `silas start` printed still does', async () => {
    const s = await scene();
    const first = await s.open();
    const second = await s.open();
    expect(first).not.toBe(second);
    expect(first).not.toBe(s.r.cockpit!.token);
    expect(second).not.toBe(s.r.cockpit!.token);
    for (const token of [first, second, s.r.cockpit!.token]) {
      const cockpit = await s.clients.authed(s.r.cockpit!.wsUrl, token);
      expect((await callFor(cockpit, 'runtime.info')).result).toMatchObject({ ok: true });
      expect(await s.secretStatus(token)).toBe(200);
    }
    expect(JSON.stringify(s.r.audit.tail(500))).not.toMatch(new RegExp(`${first}|${second}`));
  });
});

describe('cockpit.revokeSessions: signing out every other cockpit tab and link', () => {
  it('refuses the other links and closes their sessions; the caller keeps its own session and link', async () => {
    const s = await scene();
    const mine = await s.open();
    const other = await s.open();
    const startTab = await s.clients.authed(s.r.cockpit!.wsUrl);
    const otherTab = await s.clients.authed(s.r.cockpit!.wsUrl, other);
    const myTab = await s.clients.authed(s.r.cockpit!.wsUrl, mine);

    const revoked = await callFor(myTab, 'cockpit.revokeSessions');
    expect(revoked.result).toEqual({ ok: true, value: { credentials: 2, sessions: 2 } });

    // The other tabs are signed out the way the cockpit shows "Token rejected" (4001, no reconnect).
    expect(await startTab.closed).toEqual({ code: WS_CLOSE_UNAUTHORIZED, reason: REVOKED_CLOSE_REASON });
    expect(await otherTab.closed).toEqual({ code: WS_CLOSE_UNAUTHORIZED, reason: REVOKED_CLOSE_REASON });
    // Their links no longer open a session or reach secure input.
    expect(await s.refused(s.r.cockpit!.token)).toBe(true);
    expect(await s.refused(other)).toBe(true);
    expect(await s.secretStatus(s.r.cockpit!.token)).toBe(401);
    expect(await s.secretStatus(other)).toBe(401);
    // This tab and its link keep working, and a new `silas open` gets in again.
    expect((await callFor(myTab, 'runtime.info')).result).toMatchObject({ ok: true });
    expect(await s.refused(mine)).toBe(false);
    expect(await s.refused(await s.open())).toBe(false);

    const events = s.r.audit.tail(500).filter((e) => e.event === 'control.cockpit_sessions_revoked');
    expect(events.map((e) => e.data)).toEqual([{ credentials: 2, sessions: 2, transport: 'websocket', peer: expect.any(String) }]);
    expect(JSON.stringify(s.r.audit.tail(500))).not.toMatch(new RegExp(`${mine}|${other}|${s.r.cockpit!.token}`));
  });

  it('cannot be called with the ask credential of control.json: nothing is revoked, and the refusal is audited', async () => {
    const s = await scene();
    const link = await s.open();
    const tab = await s.clients.authed(s.r.cockpit!.wsUrl, link);
    const asker = await LocalSocketClient.connect(s.control.socket, s.control.token);
    cleanups.push(() => asker.close());
    await expect(asker.call('cockpit.revokeSessions', {})).rejects.toMatchObject({ code: ErrorCode.Unauthorized, message: expect.stringMatching(/needs the "decide" capability/) });
    expect((await callFor(tab, 'runtime.info')).result).toMatchObject({ ok: true });
    expect(await s.refused(link)).toBe(false);
    expect(await s.refused(s.r.cockpit!.token)).toBe(false);
    expect(s.r.audit.tail(500).filter((e) => e.event === 'control.cockpit_sessions_revoked')).toEqual([]);
    expect(s.r.audit.tail(500).filter((e) => e.event === 'control.decision_refused').map((e) => e.data)).toEqual([
      { call: 'cockpit.revokeSessions', needs: 'decide', transport: 'local-socket', peer: expect.any(String) },
    ]);
  });
});
