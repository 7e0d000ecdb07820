import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode as McpErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src-shared/contract/envelope.js';
import type { ReviewQueueView } from '../../../src-shared/schemas/review.js';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import { useTempDirs } from '../../testing/temp.js';
import { connectThroughProxy, createTestHome, SERVERS, writePolicy } from '../testing/proxy-harness.js';

/*
 * Asks follow the agent (docs/mcp-proxy.md "Asks follow the agent"), as a person met it: an MCP
 * SDK client gives up on a call waiting for approval (its request timeout, after which the SDK
 * itself sends `notifications/cancelled`), or goes away; the card must leave Review at once, a
 * late "Allow once" must be refused and say why, the call must never reach the server, and the
 * ledger must end the call with its own `aip.decision`. Real runtime, real proxy process.
 */

const tempDir = useTempDirs('silas-ask-follows-');
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

const cockpit = { transport: 'ipc' as const };

async function setup() {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const runtime = await buildRuntime({ home: home.home, mode: 'desktop' }, { secretStore: home.secretStore, logger: silentLogger });
  await runtime.start();
  open.push({ close: () => runtime.stop('test') });
  const policy = writePolicy(dir, '  allowed_tools: [read_file]\n  tool_rules:\n    - tool: delete_file\n      action: ask\n');
  const received = join(dir, 'received.log');
  writeFileSync(received, '');
  const proxied = await connectThroughProxy({ home: home.home, policy, server: SERVERS.fileTools, extra: ['--name', 'files'], env: { MCP_RECEIVED_LOG: received } });
  let closed = false;
  open.unshift({ close: () => (closed ? Promise.resolve() : proxied.close()) });
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'keep me');
  const card = async () => {
    await expect.poll(() => runtime.decisions.pendingCount(), { timeout: 15_000 }).toBe(1);
    const list = (await runtime.router.dispatch('review.list', {}, cockpit)) as Envelope<ReviewQueueView>;
    if (!list.ok) throw new Error(list.error.message);
    return list.value.cards[0]!;
  };
  const closeClient = async () => {
    closed = true;
    await proxied.close();
  };
  /** The ledger's entries for the call, proxy's and runtime's, in order. */
  const ledger = () => runtime.audit.tail(200).filter((e) => (e.event === 'aip.decision' && e.data.tool === 'delete_file') || e.event.startsWith('approvals.'));
  return { runtime, proxied, victim, received: () => readFileSync(received, 'utf8'), card, closeClient, ledger };
}

describe('an ask the agent abandoned', () => {
  it('is withdrawn when the SDK client times out and cancels: the card leaves, a late Allow is refused as withdrawn, nothing runs, the ledger ends the call', async () => {
    const s = await setup();
    const call = s.proxied.client.callTool({ name: 'delete_file', arguments: { path: s.victim } }, undefined, { timeout: 2000 }).catch((e: unknown) => e);
    const card = await s.card();
    const error = (await call) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(McpErrorCode.RequestTimeout);

    // "At once": the card is gone well before the runtime's own expiry (the ask timeout, 50 s).
    await expect.poll(() => s.runtime.decisions.pendingCount(), { timeout: 5000 }).toBe(0);
    const late = await s.runtime.router.dispatch('review.decide', { id: card.id, choice: 'allow_once' }, cockpit);
    expect(late).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^this request was withdrawn: the agent cancelled the call \(it said: ".*Request timed out.*"\); nothing ran/) } });

    expect(readFileSync(s.victim, 'utf8')).toBe('keep me');
    // The server never saw the call, nor a cancellation of a call it never had.
    expect(s.received()).not.toMatch(/delete_file|notifications\/cancelled/);
    await expect.poll(() => s.ledger().map((e) => `${e.event}:${String(e.data.decision ?? '')}`), { timeout: 5000 }).toEqual(['aip.decision:ASK', 'approvals.requested:', 'aip.decision:BLOCK', 'approvals.withdrawn:']);
    expect(s.ledger().at(-2)!.data).toMatchObject({ decision: 'BLOCK', approval: 'cancelled', withdrawn: 'client_cancelled', reason: expect.stringMatching(/agent cancelled the call .*never ran/), violation: false });
    expect(s.runtime.audit.verifyChain().valid).toBe(true);
  });

  it('is withdrawn when the client closes its connection while the call waits', async () => {
    const s = await setup();
    void s.proxied.client.callTool({ name: 'delete_file', arguments: { path: s.victim } }).catch(() => undefined);
    const card = await s.card();
    await s.closeClient();
    await expect.poll(() => s.runtime.decisions.pendingCount(), { timeout: 5000 }).toBe(0);
    const late = await s.runtime.router.dispatch('review.decide', { id: card.id, choice: 'allow_once' }, cockpit);
    expect(late).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^this request was withdrawn: the agent's connection to the proxy closed; nothing ran/) } });
    expect(existsSync(s.victim)).toBe(true);
    await expect.poll(() => s.ledger().map((e) => `${e.event}:${String(e.data.decision ?? '')}`), { timeout: 5000 }).toEqual(['aip.decision:ASK', 'approvals.requested:', 'aip.decision:BLOCK', 'approvals.withdrawn:']);
    expect(s.ledger().at(-2)!.data).toMatchObject({ decision: 'BLOCK', approval: 'cancelled', withdrawn: 'client_closed' });
  });
});
