import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WS_CLOSE_UNAUTHORIZED } from '../../../src-shared/contract/wire.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import type { Runtime } from '../../app/types.js';
import { LocalSocketClient } from '../../control/local-socket-client.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { planHash } from '../../silas/work/hashes.js';
import { parsePlan } from '../../silas/work/plan-parser.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { wsTestClients, type Frame, type WsTestClient } from '../../testing/ws-test-client.js';
import { commandOpener } from '../../app/cli-context.js';

// `silas open` (docs/control-plane.md "Getting back into the cockpit"): a person who closed the
// cockpit tab gets a link back from a terminal that reaches the OS keyring; what control.json
// holds still cannot decide.
const tempDir = useTempDirs('silas-open-');
const cleanups: Array<() => void> = [];
let runtime: Runtime | null = null;

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await runtime?.stop('test');
  runtime = null;
});

async function startHeadless(store: MemorySecretStore): Promise<Runtime> {
  runtime = await buildRuntime({ home: join(tempDir(), 'home'), mode: 'headless', port: 0, cockpitDir: null, auditPollMs: 20 }, { secretStore: store, logger: silentLogger });
  await runtime.start();
  return runtime;
}

/** A call's result frame; events pushed meanwhile (audit entries, review deltas) are passed over. */
async function callFor(client: WsTestClient, id: number, name: string, args: unknown): Promise<Frame> {
  client.sendJson({ type: 'call', id, name, args });
  for (;;) {
    const frame = await client.next();
    if (frame.type === 'result' && frame.id === id) return frame;
  }
}

function askCredential(home: string): { socket: string; token: string } {
  return JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as { socket: string; token: string };
}

describe('silas open', () => {
  it('prints a link whose credential opens a cockpit session that can decide; the control.json credential still cannot', async () => {
    const store = new MemorySecretStore();
    const r = await startHeadless(store);

    const result = await runSilas(['open', '--home', r.home, '--print'], { secretStore: store });
    expect(result.err).not.toMatch(/silas open:/);
    expect(result.code).toBe(0);
    const printed = /^Cockpit: (http:\/\/127\.0\.0\.1:\d+\/)#token=([A-Za-z0-9_-]+)$/m.exec(result.out);
    expect(printed, result.out).not.toBeNull();
    expect(printed![1]).toBe(r.cockpit!.url);
    const token = printed![2]!;

    // A plan waits for the person, asked as `silas run` would (the ask credential).
    const control = askCredential(r.home);
    const asker = await LocalSocketClient.connect(control.socket, control.token);
    cleanups.push(() => asker.close());
    const item = parsePlan('---\nid: task-open\ntype: task\ntitle: Decide me\n---\nBody.\n');
    const answer = asker.call('plans.requestApproval', { item, planHash: planHash(item), source: '/plans/open.md', timeoutMs: 60_000 });
    answer.catch(() => undefined);

    // The printed credential opens the cockpit and decides.
    const clients = wsTestClients((cleanup) => cleanups.push(cleanup), { token });
    const cockpit = await clients.authed(r.cockpit!.wsUrl);
    let cards: { id: string }[] = [];
    let calls = 0;
    await expect
      .poll(async () => {
        cards = (await callFor(cockpit, ++calls, 'review.list', {})).result.value.cards;
        return cards.length;
      })
      .toBe(1);
    const decided = await callFor(cockpit, ++calls, 'review.decide', { id: cards[0]!.id, choice: 'approve' });
    expect(decided.result).toMatchObject({ ok: true });
    expect(await answer).toMatchObject({ outcome: 'approve' });

    // The ask credential cannot decide over the socket, nor open the WebSocket.
    await expect(asker.call('review.decide', { id: cards[0]!.id, choice: 'approve' })).rejects.toMatchObject({ code: ErrorCode.Unauthorized });
    const thief = await clients.open(r.cockpit!.wsUrl);
    thief.sendJson({ type: 'auth', token: control.token });
    expect((await thief.closed).code).toBe(WS_CLOSE_UNAUTHORIZED);

    // Audited with the key's fingerprint, never the credential.
    const issued = r.audit.tail(200).filter((e) => e.event === 'control.cockpit_link_issued');
    expect(issued.map((e) => e.data)).toEqual([{ owner_fingerprint: r.info().ownerFingerprint, delivered: 'link', transport: 'local-socket', peer: expect.any(String) }]);
    expect(JSON.stringify(r.audit.tail(500))).not.toContain(token);
  });

  it('only prints the link by default (an opener would put it on a command line); opens it in the browser with --browser', async () => {
    const store = new MemorySecretStore();
    const r = await startHeadless(store);
    const opened: string[] = [];
    const { createOpenCommand } = await import('./open.js');
    const command = createOpenCommand({ opener: () => async (url) => (opened.push(url), true) });
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: () => undefined, env: {}, secretStore: store };
    expect(await command.run(['--home', r.home], io, commandOpener(io))).toBe(0);
    expect(opened).toEqual([]);
    expect(await command.run(['--home', r.home, '--browser'], io, commandOpener(io))).toBe(0);
    expect(opened).toEqual([expect.stringMatching(new RegExp(`^${r.cockpit!.url.replace(/[.]/g, '\\.')}#token=[A-Za-z0-9_-]{43}$`))]);
    expect(await command.run(['--home', r.home, '--print'], io, commandOpener(io))).toBe(0);
    expect(opened).toHaveLength(1);
    expect(out.filter((line) => line.startsWith('Cockpit: '))).toHaveLength(3);
  });

  it('says to run `silas start` when no control center runs for the home', async () => {
    const result = await runSilas(['open', '--home', join(tempDir(), 'nothing-here'), '--print'], { secretStore: new MemorySecretStore() });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/not running for the data home .*nothing-here.*start it with `silas start`/);
    expect(result.out).toBe('');
  });

  it('without the owner key in the keyring (the ask credential alone), there is no link, and the error says how to get the key', async () => {
    const r = await startHeadless(new MemorySecretStore());
    // Another keyring: it can read control.json but does not hold this home's owner key.
    const result = await runSilas(['open', '--home', r.home, '--print'], { secretStore: new MemorySecretStore() });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/needs this home's owner key from the OS keyring, and the owner key for this home is not in the OS keyring.*unlock the keyring/);
    expect(result.out).not.toContain('#token=');
  });

  it('a keyring that cannot be reached is reported with its fix', async () => {
    const r = await startHeadless(new MemorySecretStore());
    const locked = new MemorySecretStore();
    locked.get = () => {
      throw new SilasError(ErrorCode.Keyring, 'the OS keyring (test) is not reachable: locked. To fix: unlock it');
    };
    const result = await runSilas(['open', '--home', r.home, '--print'], { secretStore: locked });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/owner key from the OS keyring, and the OS keyring \(test\) is not reachable: locked\. To fix: unlock it/);
  });
});
