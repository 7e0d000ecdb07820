import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src-shared/contract/envelope.js';
import type { ReviewQueueView } from '../../src-shared/schemas/review.js';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import type { Runtime } from '../app/types.js';
import { homePaths } from '../home/paths.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { planHash } from '../silas/work/hashes.js';
import { parsePlan } from '../silas/work/plan-parser.js';
import { useTempDirs } from '../testing/temp.js';
import { connectToControlCenter, type LocalSocketClient } from './local-socket-client.js';

/*
 * Questions follow the asker (docs/review.md "Withdrawn"): a proxy withdraws what it asked when its
 * agent cancels or leaves, the runtime withdraws what a connection asked when the connection drops,
 * a late decision says the question was withdrawn, and a second connection holding the same ask
 * credential (any local process can) cannot withdraw another connection's question.
 */

const tempDir = useTempDirs('silas-ask-withdraw-');
const runtimes: Runtime[] = [];
const clients: LocalSocketClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const runtime of runtimes.splice(0)) await runtime.stop('test over');
});

const cockpit = { transport: 'ipc' as const };
const question = (requestId: number) => {
  const args = { path: '/tmp/victim' };
  return { server: 'files', tool: 'delete_file', args, display: args, requestId, sessionId: 'proxy-session', rule: 'delete_file', reason: 'ask', policyName: 'p', timeoutMs: 60_000 };
};

async function setup() {
  const home = join(tempDir(), 'home');
  const runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: new MemorySecretStore(), logger: silentLogger });
  await runtime.start();
  runtimes.push(runtime);
  const connect = async () => {
    const client = await connectToControlCenter(homePaths(home).controlFile);
    clients.push(client);
    return client;
  };
  const cardIds = async () => {
    const listed = (await runtime.router.dispatch('review.list', {}, cockpit)) as Envelope<ReviewQueueView>;
    if (!listed.ok) throw new Error(listed.error.message);
    return listed.value.cards.map((c) => c.id);
  };
  const events = (name: string) => runtime.audit.tail(100).filter((e) => e.event === name).map((e) => e.data);
  return { runtime, connect, cardIds, events };
}

describe('approvals.withdraw and the asking connection', () => {
  it('withdraws only the asking connection\'s question; the card leaves at once and a late decision is refused as withdrawn', async () => {
    const s = await setup();
    const proxy = await s.connect();
    const hostile = await s.connect();
    const asked = proxy.call('approvals.request', question(1));
    await expect.poll(() => s.runtime.decisions.pendingCount()).toBe(1);
    const [id] = await s.cardIds();

    // Same credential, same session and request ids, another connection: it reaches nothing.
    await expect(hostile.call('approvals.withdraw', { sessionId: 'proxy-session', requestId: 1, reason: 'client_cancelled' })).resolves.toEqual({ withdrawn: false });
    expect(s.runtime.decisions.pendingCount()).toBe(1);

    await expect(proxy.call('approvals.withdraw', { sessionId: 'proxy-session', requestId: 1, reason: 'client_cancelled', detail: 'McpError: MCP error -32001: Request timed out' })).resolves.toEqual({ withdrawn: true });
    expect(s.runtime.decisions.pendingCount()).toBe(0);
    await expect(asked).resolves.toMatchObject({ outcome: 'deny', reason: expect.stringMatching(/^the agent cancelled the call \(it said: "McpError: MCP error -32001: Request timed out"\)$/) });

    const late = await s.runtime.router.dispatch('review.decide', { id, choice: 'allow_once' }, cockpit);
    expect(late).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS', message: expect.stringMatching(/^this request was withdrawn: the agent cancelled the call .*; nothing ran/) } });
    expect(s.events('approvals.withdrawn')).toEqual([expect.objectContaining({ approval_id: id, tool: 'delete_file', reason: expect.stringMatching(/^the agent cancelled the call/) })]);
    expect(s.events('approvals.approved')).toEqual([]);
    expect(s.runtime.audit.verifyChain().valid).toBe(true);
  });

  it('withdraws every question a connection asked when the connection drops', async () => {
    const s = await setup();
    const proxy = await s.connect();
    const other = await s.connect();
    void proxy.call('approvals.request', question(1)).catch(() => undefined);
    void proxy.call('approvals.request', question(2)).catch(() => undefined);
    const kept = other.call('approvals.request', question(3));
    await expect.poll(() => s.runtime.decisions.pendingCount()).toBe(3);

    proxy.close();
    await expect.poll(() => s.runtime.decisions.pendingCount()).toBe(1);
    expect(s.events('approvals.withdrawn').map((d) => d.reason)).toEqual(["the proxy's connection to Silas closed", "the proxy's connection to Silas closed"]);
    const [id] = await s.cardIds();
    await s.runtime.router.dispatch('review.decide', { id, choice: 'deny' }, cockpit);
    await expect(kept).resolves.toMatchObject({ outcome: 'deny' });
  });

  it('withdraws a plan question when the `silas run` connection that asked it closes', async () => {
    const s = await setup();
    const run = await s.connect();
    const item = parsePlan('---\nid: task-withdrawn\ntype: task\ntitle: Left behind\n---\nBody.\n');
    void run.call('plans.requestApproval', { item, planHash: planHash(item), source: '/plans/left.md', timeoutMs: 60_000 }).catch(() => undefined);
    await expect.poll(() => s.runtime.decisions.pendingCount()).toBe(1);
    const [id] = await s.cardIds();
    run.close();
    await expect.poll(() => s.runtime.decisions.pendingCount()).toBe(0);
    expect(s.events('silas.plan_approval.withdrawn')).toEqual([expect.objectContaining({ reason: 'the connection that asked closed' })]);
    const late = await s.runtime.router.dispatch('review.decide', { id, choice: 'approve' }, cockpit);
    expect(late).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^this request was withdrawn: the connection that asked closed; nothing ran/) } });
  });
});
