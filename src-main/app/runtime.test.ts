import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../keys/secret-store.js';
import { silentLogger } from './logger.js';
import { useTempDirs } from '../testing/temp.js';
import { buildRuntime } from './runtime.js';
import { homeError } from '../home/home.js';
import { desktopAvailability } from '../cli/desktop-launcher.js';
import { parsePlan } from '../silas/work/plan-parser.js';
import { planHash } from '../silas/work/hashes.js';
import type { NotificationRequest } from './types.js';
import type { ReviewQueueDelta } from '../../src-shared/schemas/review.js';
import { ToolPinRepository } from '../store/repositories/tool-pins.js';
import { toolPinSealer } from '../mcp/tool-pin-seals.js';
import { openHome } from './home.js';

const tempDir = useTempDirs();

describe('runtime composition', () => {
  it('writes signed checkpoints on its schedule and one at shutdown', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'desktop', checkpointIntervalMs: 50 }, { secretStore: new MemorySecretStore(), logger: silentLogger });
    await runtime.start();
    runtime.audit.append('operator.note', { text: 'one' });
    await expect.poll(() => runtime.audit.verifyChain().checkpoints, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    expect(runtime.cockpit).toBeNull();
    await runtime.stop('test');
    await runtime.stop('again');
  });

  it('publishes entries appended by anyone on the event bus, once each', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'desktop', auditPollMs: 10 }, { secretStore: new MemorySecretStore(), logger: silentLogger });
    await runtime.start();
    const seen: number[] = [];
    runtime.events.subscribe((name, payload) => {
      if (name === 'audit.appended') seen.push((payload as { index: number }).index);
    });
    const a = runtime.audit.append('operator.note', { text: 'a' });
    const b = runtime.audit.append('operator.note', { text: 'b' });
    await expect.poll(() => seen).toEqual([a.index, b.index]);
    await runtime.stop('test');
    expect(seen.filter((i) => i === a.index)).toHaveLength(1);
  });

  it('pausing approvals is an audited decision', async () => {
    const runtime = await buildRuntime({ home: join(tempDir(), 'home'), mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger });
    await runtime.start();
    runtime.decisions.setPaused(true);
    runtime.decisions.setPaused(true);
    runtime.decisions.setPaused(false);
    const events = runtime.audit.tail(4).map((e) => e.event);
    expect(events).toEqual(['runtime.started', 'silas.stream.started', 'approvals.paused', 'approvals.resumed']);
    await runtime.stop('test');
  });
});

describe('plan approvals in the runtime', () => {
  it('a waiting plan raises the tray count and a notification; Approve answers with a token for that plan; paused denies at once', async () => {
    const notified: NotificationRequest[] = [];
    const runtime = await buildRuntime({ home: join(tempDir(), 'home'), mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger, notifier: { notify: (n) => notified.push(n) } });
    await runtime.start();
    const changes: number[] = [];
    runtime.events.subscribe((name, payload) => {
      if (name === 'review.changed') changes.push((payload as ReviewQueueDelta).total);
    });
    let tray = -1;
    runtime.decisions.subscribe(() => (tray = runtime.decisions.pendingCount()));
    const item = parsePlan('---\nid: task-tray\ntype: task\ntitle: Count me\n---\nBody.\n');
    const args = { item, planHash: planHash(item), source: '/plans/tray.md', timeoutMs: 60_000 };
    const local = { transport: 'local-socket' as const };
    const cockpit = { transport: 'websocket' as const };

    const answer = runtime.router.dispatch('plans.requestApproval', args, local);
    await expect.poll(() => tray).toBe(1);
    expect(notified.at(-1)?.title).toBe('Approve plan "Count me"?');
    const listed = (await runtime.router.dispatch('review.list', {}, cockpit)) as { ok: true; value: { cards: { id: string }[] } };
    expect(await runtime.router.dispatch('review.decide', { id: listed.value.cards[0]!.id, choice: 'approve' }, cockpit)).toMatchObject({ ok: true });
    expect(await answer).toMatchObject({ ok: true, value: { outcome: 'approve', token: { plan_hash: args.planHash, work_item_id: 'task-tray' } } });
    expect(tray).toBe(0);
    expect(changes).toEqual([1, 0]);

    runtime.decisions.setPaused(true);
    expect(await runtime.router.dispatch('plans.requestApproval', args, local)).toMatchObject({ ok: true, value: { outcome: 'deny', reason: expect.stringContaining('paused') } });
    await runtime.stop('test');
  });
});

describe('tool-definition changes reach Review from the proxies', () => {
  it('a change a proxy (another process) records joins the Review queue as a card, published to the cockpit without a reload', async () => {
    const home = join(tempDir(), 'home');
    const keyring = new MemorySecretStore();
    const runtime = await buildRuntime({ home, mode: 'desktop', auditPollMs: 50 }, { secretStore: keyring, logger: silentLogger });
    await runtime.start();
    const published: string[][] = [];
    runtime.events.subscribe((name, payload) => {
      if (name === 'review.changed') published.push((payload as ReviewQueueDelta).added.map((c) => c.kind));
    });
    // What `silas proxy` does when a server announces another definition: pin it as pending, record it.
    const proxy = openHome(home, { create: false, keys: 'signer', secretStore: keyring });
    const pins = new ToolPinRepository(proxy.db, toolPinSealer(proxy.seals));
    pins.observe('web', 'fetch', 'sha256:aaaa');
    pins.observe('web', 'fetch', 'sha256:bbbb');
    proxy.audit.append('mcp.tool_changed', { server: 'web', session_id: 's', tool: 'fetch', announced_name: 'fetch', expected_hash: 'sha256:aaaa', actual_hash: 'sha256:bbbb' });
    proxy.close();
    await expect.poll(() => published.at(-1), { timeout: 5000 }).toEqual(['tool_change']);
    expect(runtime.decisions.pendingCount()).toBe(1);
    await runtime.stop('test');
  });
});

describe('a start that fails creates nothing', () => {
  it('a headless start on a port in use leaves no home, database or key behind', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const home = join(tempDir(), 'fresh-home');
    const written: string[] = [];
    const store = new MemorySecretStore();
    const recording = { description: store.description, get: (a: string) => store.get(a), delete: (a: string) => store.delete(a), set: (a: string, v: string) => (written.push(a), store.set(a, v)) };
    // What `silas start` does: build, start, and stop again if starting failed.
    const start = async () => {
      const runtime = await buildRuntime({ home, mode: 'headless', port, cockpitDir: null }, { secretStore: recording, logger: silentLogger });
      try {
        await runtime.start();
      } catch (error) {
        await runtime.stop('start failed');
        throw error;
      }
    };
    try {
      await expect(start()).rejects.toMatchObject({ code: 'E_PORT_IN_USE', message: expect.stringContaining(`port ${port} on 127.0.0.1 is already in use`) });
    } finally {
      blocker.close();
    }
    expect(existsSync(home)).toBe(false);
    expect(written).toEqual([]);
  });
});

describe('environment errors', () => {
  it('maps permission errors on the home to a fix', () => {
    const error = homeError('/srv/silas', Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
    expect(error.message).toBe('cannot write to /srv/silas (EACCES); give your user write access (chmod u+rwx) or choose another --home');
  });

  it('falls back to headless when Electron or its build is missing', () => {
    const result = desktopAvailability({ DISPLAY: ':0' }, '/nonexistent/out/main/index.js');
    expect(result.available).toBe(false);
    if (!result.available) expect(result.reason).toMatch(/Electron is not installed|binary is missing|desktop build is missing/);
  });
});
