import { join } from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src-shared/contract/envelope.js';
import type { CardOf, ReviewQueueView } from '../../../src-shared/schemas/review.js';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import type { Runtime } from '../../app/types.js';
import { useTempDirs } from '../../testing/temp.js';
import { connectThroughProxy, createTestHome, SERVERS, writePolicy, type ProxiedClient } from '../testing/proxy-harness.js';

// The whole journey: an MCP client calls a tool that policy says to ask about; the real
// runtime shows the card; the human approves (or denies) through the contract; the proxy
// verifies the signed approval, consumes its nonce and forwards. All real processes.
const tempDir = useTempDirs();
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

async function setup(): Promise<{ runtime: Runtime; proxied: ProxiedClient; dir: string }> {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const runtime = await buildRuntime({ home: home.home, mode: 'desktop' }, { secretStore: home.secretStore, logger: silentLogger });
  await runtime.start();
  open.push({ close: () => runtime.stop('test') });
  const policy = writePolicy(dir, '  allowed_tools: [read_file]\n  tool_rules:\n    - tool: delete_file\n      action: ask\n');
  const proxied = await connectThroughProxy({ home: home.home, policy, server: SERVERS.fileTools, extra: ['--name', 'files'] });
  open.unshift({ close: () => proxied.close() });
  return { runtime, proxied, dir };
}

async function waitForCard(runtime: Runtime): Promise<CardOf<'tool_call'>> {
  await expect.poll(() => runtime.decisions.pendingCount(), { timeout: 15_000 }).toBe(1);
  const list = (await runtime.router.dispatch('review.list', {}, { transport: 'ipc' })) as Envelope<ReviewQueueView>;
  if (!list.ok) throw new Error(list.error.message);
  return list.value.cards[0] as CardOf<'tool_call'>;
}

describe('ask → human decision → signed approval → forwarded call', () => {
  it('an approved call reaches the server, and the ledger holds the request, the approval and the consumed nonce', async () => {
    const { runtime, proxied, dir } = await setup();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'bye');
    const call = proxied.client.callTool({ name: 'delete_file', arguments: { path: victim } });
    const card = await waitForCard(runtime);
    expect(card).toMatchObject({ kind: 'tool_call', riskLevel: 'high', details: { server: 'files', tool: 'delete_file', args: { path: victim } } });
    await runtime.router.dispatch('review.decide', { id: card.id, choice: 'allow_once' }, { transport: 'ipc' });
    const result = (await call) as { isError?: boolean };
    expect(result.isError ?? false).toBe(false);
    expect(existsSync(victim)).toBe(false);
    const events = runtime.audit.tail(50).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['approvals.requested', 'silas.approval.issued', 'approvals.approved', 'silas.approval.consumed', 'aip.decision']));
    const allowed = runtime.audit.tail(50).find((e) => e.event === 'aip.decision' && e.data.tool === 'delete_file' && e.data.decision === 'ALLOW');
    expect(allowed?.data).toMatchObject({ approval_nonce: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(runtime.audit.verifyChain().valid).toBe(true);
  });

  it('a denied call gets -32004 and never reaches the server', async () => {
    const { runtime, proxied, dir } = await setup();
    const keep = join(dir, 'keep.txt');
    writeFileSync(keep, 'stay');
    const call = proxied.client.callTool({ name: 'delete_file', arguments: { path: keep } }).catch((e: unknown) => e);
    const card = await waitForCard(runtime);
    await runtime.router.dispatch('review.decide', { id: card.id, choice: 'deny' }, { transport: 'ipc' });
    const error = (await call) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32004);
    expect(existsSync(keep)).toBe(true);
  });

  it('"always allow" lets the same call through without asking, other arguments still ask, and revoking asks again', async () => {
    const { runtime, proxied, dir } = await setup();
    const file = join(dir, 'again.txt');
    const remake = () => writeFileSync(file, 'x');
    remake();
    const first = proxied.client.callTool({ name: 'delete_file', arguments: { path: file } });
    const card = await waitForCard(runtime);
    await runtime.router.dispatch('review.decide', { id: card.id, choice: 'always_allow' }, { transport: 'ipc' });
    await first;
    expect(existsSync(file)).toBe(false);

    remake();
    await proxied.client.callTool({ name: 'delete_file', arguments: { path: file } });
    expect(existsSync(file)).toBe(false);
    expect(runtime.decisions.pendingCount()).toBe(0);
    const standingDecision = runtime.audit.tail(10).find((e) => e.event === 'aip.decision' && e.data.approval === 'standing');
    expect(standingDecision?.data).toMatchObject({ decision: 'ALLOW', tool: 'delete_file', standing_id: expect.any(String) });

    const other = join(dir, 'other.txt');
    writeFileSync(other, 'y');
    const otherCall = proxied.client.callTool({ name: 'delete_file', arguments: { path: other } }).catch((e: unknown) => e);
    const otherCard = await waitForCard(runtime);
    await runtime.router.dispatch('review.decide', { id: otherCard.id, choice: 'deny' }, { transport: 'ipc' });
    expect(((await otherCall) as McpError).code).toBe(-32004);

    const listed = (await runtime.router.dispatch('approvals.listStanding', {}, { transport: 'ipc' })) as Envelope<{ standing: { id: string }[] }>;
    if (!listed.ok) throw new Error(listed.error.message);
    await runtime.router.dispatch('approvals.revokeStanding', { id: listed.value.standing[0]!.id }, { transport: 'ipc' });
    remake();
    const afterRevoke = proxied.client.callTool({ name: 'delete_file', arguments: { path: file } }).catch((e: unknown) => e);
    const again = await waitForCard(runtime);
    await runtime.router.dispatch('review.decide', { id: again.id, choice: 'deny' }, { transport: 'ipc' });
    expect(((await afterRevoke) as McpError).code).toBe(-32004);
    expect(existsSync(file)).toBe(true);
  });
});
