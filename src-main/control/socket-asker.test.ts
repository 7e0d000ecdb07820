import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import type { ApprovalRequest } from '../mcp/proxy/approver.js';
import { planHash } from '../silas/work/hashes.js';
import { parsePlan } from '../silas/work/plan-parser.js';
import { useTempDirs } from '../testing/temp.js';
import { ControlSocketAsker } from './socket-asker.js';

const tempDir = useTempDirs('silas-socket-asker-');
const args = { path: '/tmp/x' };
const toolCall: ApprovalRequest = { server: 'files', tool: 'delete_file', args, display: args, requestId: 1, sessionId: 's', rule: 'ask', reason: 'r', policyName: 'p' };
const item = parsePlan('---\nid: task-asker\ntype: task\ntitle: Ask me\n---\nBody.\n');
const plan = { item, planHash: planHash(item), source: '/plans/asker.md', timeoutMs: 60_000 };

describe('ControlSocketAsker', () => {
  it('answers unreachable at once for either kind when no control center runs, naming the fix for each', async () => {
    const asker = new ControlSocketAsker(tempDir());
    await expect(asker.askToolCall(toolCall, 60_000, new AbortController().signal)).resolves.toMatchObject({ outcome: 'unreachable', reason: expect.stringMatching(/not running.*silas start/) });
    await expect(asker.askPlan(plan)).resolves.toMatchObject({ outcome: 'unreachable', reason: expect.stringMatching(/not running.*silas start.*--approve-here/) });
    asker.close();
  });

  it('asks about a tool call and a plan over one connection, answers timeout on abort, and unreachable once the runtime is gone', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger });
    await runtime.start();
    const asker = new ControlSocketAsker(home);
    const cockpit = { transport: 'websocket' as const };
    try {
      const call = asker.askToolCall(toolCall, 60_000, new AbortController().signal);
      const planned = asker.askPlan(plan);
      await expect.poll(() => runtime.decisions.pendingCount()).toBe(2);
      const listed = (await runtime.router.dispatch('review.list', {}, cockpit)) as { ok: true; value: { cards: { id: string; kind: string }[] } };
      const idOf = (kind: string) => listed.value.cards.find((c) => c.kind === kind)!.id;
      await runtime.router.dispatch('review.decide', { id: idOf('plan'), choice: 'approve' }, cockpit);
      await runtime.router.dispatch('review.decide', { id: idOf('tool_call'), choice: 'deny' }, cockpit);
      await expect(planned).resolves.toMatchObject({ outcome: 'approve', token: { plan_hash: plan.planHash } });
      await expect(call).resolves.toMatchObject({ outcome: 'deny' });

      const abort = new AbortController();
      const waiting = asker.askToolCall(toolCall, 60_000, abort.signal);
      await expect.poll(() => runtime.decisions.pendingCount()).toBe(1);
      abort.abort();
      await expect(waiting).resolves.toEqual({ outcome: 'timeout' });
    } finally {
      await runtime.stop('test');
    }
    await expect(asker.askPlan(plan)).resolves.toMatchObject({ outcome: 'unreachable', reason: expect.stringMatching(/--approve-here/) });
    asker.close();
  });

  it('answers deny at once when Review refuses to queue the question (its cap per session), and keeps the connection', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger });
    await runtime.start();
    const asker = new ControlSocketAsker(home);
    try {
      const waiting = Array.from({ length: 50 }, (_, i) => asker.askToolCall({ ...toolCall, requestId: i }, 60_000, new AbortController().signal));
      await expect.poll(() => runtime.decisions.pendingCount()).toBe(50);
      await expect(asker.askToolCall({ ...toolCall, requestId: 99 }, 60_000, new AbortController().signal)).resolves.toEqual({
        outcome: 'deny',
        reason: expect.stringContaining('cap per requester session is 50'),
      });
      expect(runtime.decisions.pendingCount()).toBe(50);
      void waiting;
    } finally {
      await runtime.stop('test');
    }
    asker.close();
  });
});
