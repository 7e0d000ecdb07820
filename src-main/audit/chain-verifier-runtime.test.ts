import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import { LocalSocketClient } from '../control/local-socket-client.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';

const tempDir = useTempDirs();

describe('chain verification in the runtime', () => {
  it('answers a cockpit call and a proxy approval request while a 100k verification runs', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger });
    await runtime.start();
    for (let batch = 0; batch < 100; batch += 1) {
      runtime.audit.appendBatch(Array.from({ length: 1000 }, (_, i) => ({ event: 'operator.note' as const, data: { text: `note ${batch * 1000 + i}` } })));
    }
    // Paused, an approval request is answered (refused) at once: what matters is that it is answered.
    runtime.decisions.setPaused(true);
    const control = JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as { socket: string; token: string };
    const proxy = await LocalSocketClient.connect(control.socket, control.token);

    const order: string[] = [];
    let progressed!: () => void;
    const firstProgress = new Promise<void>((resolve) => (progressed = resolve));
    runtime.events.subscribe((name) => {
      if (name === 'audit.verifyProgress') {
        if (!order.includes('progress')) order.push('progress');
        progressed();
      }
    });
    const cockpit = { transport: 'websocket' as const };
    const verified = runtime.router.dispatch('audit.verify', { mode: 'full' }, cockpit).then((answer) => {
      order.push('verified');
      return answer;
    });
    await firstProgress;
    const status = await runtime.router.dispatch('audit.verifyStatus', {}, cockpit);
    expect(status).toMatchObject({ ok: true, value: { running: { mode: 'full', total: expect.any(Number) } } });
    await runtime.router.dispatch('runtime.info', {}, cockpit).then((answer) => {
      expect(answer).toMatchObject({ ok: true });
      order.push('cockpit call answered');
    });
    const args = { path: '/tmp/report.txt' };
    await proxy
      .call('approvals.request', { server: 'files', tool: 'delete_file', args, display: args, requestId: 7, sessionId: 's', rule: 'ask', reason: 'asks', policyName: 'p', timeoutMs: 10_000 })
      .then((answer) => {
        expect(answer).toMatchObject({ outcome: 'deny' });
        order.push('approval answered');
      });
    expect(await verified).toMatchObject({ ok: true, value: { valid: true, mode: 'full' } });
    expect((await verified as { value: { entries: number } }).value.entries).toBeGreaterThan(100_000);
    expect(order).toEqual(['progress', 'cockpit call answered', 'approval answered', 'verified']);
    proxy.close();
    await runtime.stop('test');
  });
});
