import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { startProxyCommand, type CommandProxy } from '../testing/cli-proxy.js';
import { createTestHome, SERVERS, startInProcessProxy, writePolicy, type InProcessProxy } from '../testing/proxy-harness.js';
import { rpcError } from '../testing/rpc-error.js';
import { never, ScriptedApprover, signApprovalFor } from '../testing/test-approver.js';
import type { ApprovalAnswer } from './approver.js';

/*
 * Timing that cannot race (docs/mcp-proxy.md "Asks follow the agent"), driven by the MCP SDK's own
 * client with its defaults (a 60 s request timeout) against `silas proxy` through its main
 * function with its defaults, on a fake clock: a person takes minutes, the agent's request must
 * neither time out under them nor outlive the proxy's answer.
 */

const tempDir = useTempDirs('silas-ask-timing-');
const running: Array<CommandProxy | InProcessProxy> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const p of running.splice(0)) await p.close().catch(() => undefined);
});

const POLICY = '  allowed_tools: [echo, slow, crash]\n  tool_rules:\n    - tool: delete_file\n      action: ask\n';

type Answer = ConstructorParameters<typeof ScriptedApprover>[0];

/** `answerFor` gets the home, whose owner key signs an approval. */
async function setup(answerFor: (home: ReturnType<typeof createTestHome>) => Answer, flags: string[] = []) {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const approver = new ScriptedApprover(answerFor(home));
  const proxy = await startProxyCommand({ home: home.home, secretStore: home.secretStore, policy: writePolicy(dir, POLICY), server: SERVERS.fileTools, approver, flags });
  running.push(proxy);
  const target = join(dir, 'victim.txt');
  writeFileSync(target, 'x');
  return { home, approver, proxy, target };
}

function decisionsOf(home: ReturnType<typeof createTestHome>) {
  const ledger = home.open();
  try {
    return [...ledger.audit.since()].filter((e) => e.event === 'aip.decision' && e.data.tool === 'delete_file').map((e) => e.data);
  } finally {
    ledger.close();
  }
}

/** Lets the proxy's I/O run (stream callbacks and the child's pipes are not on the fake clock). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i += 1) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('condition not met');
}

const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });

describe('an ask and the client\'s request timeout', () => {
  it('with a progressToken, waits 3 minutes for the person: the client hears progress and does not time out', async () => {
    let release!: () => void;
    const s = await setup((home) => (req) => new Promise<ApprovalAnswer>((resolve) => (release = () => resolve({ outcome: 'approve', token: signApprovalFor(req, home.signer) }))));
    fakeClock();
    const progress: Progress[] = [];
    let settled = false;
    const call = s.proxy.client
      .callTool({ name: 'delete_file', arguments: { path: s.target } }, undefined, { onprogress: (p) => void progress.push(p), resetTimeoutOnProgress: true })
      .finally(() => (settled = true));
    await until(() => s.approver.requests.length === 1);
    // The SDK's default request timeout is 60 s; the person takes three minutes.
    for (let elapsed = 0; elapsed < 180_000; elapsed += 5000) await vi.advanceTimersByTimeAsync(5000);
    expect(settled).toBe(false);
    expect(progress.length).toBeGreaterThanOrEqual(17);
    expect(progress.slice(0, 2)).toEqual([
      { progress: 1, message: 'waiting for your approval in Silas' },
      { progress: 2, message: 'waiting for your approval in Silas' },
    ]);
    vi.useRealTimers();
    release();
    expect(await call).toMatchObject({ content: [{ text: `deleted ${s.target}` }] });
    expect(decisionsOf(s.home).map((d) => d.decision)).toEqual(['ASK', 'ALLOW']);
  });

  it('with a progressToken and the defaults, the person has ten minutes; then the agent gets -32005 and the card expires with it', async () => {
    const s = await setup(() => never);
    fakeClock();
    const error = rpcError(s.proxy.client.callTool({ name: 'delete_file', arguments: { path: s.target } }, undefined, { onprogress: () => undefined, resetTimeoutOnProgress: true }));
    await until(() => s.approver.requests.length === 1);
    // The card Review shows expires when the proxy stops waiting, not at the 50 s of a request without progress.
    expect(s.approver.requests[0]).toMatchObject({ timeoutMs: 600_000 });
    for (let elapsed = 0; elapsed < 595_000; elapsed += 5000) await vi.advanceTimersByTimeAsync(5000);
    expect(s.approver.aborted).toHaveLength(0);
    for (let elapsed = 0; elapsed < 10_000; elapsed += 5000) await vi.advanceTimersByTimeAsync(5000);
    vi.useRealTimers();
    expect(await error).toMatchObject({ code: -32005, data: { reason: 'The approval prompt timed out' } });
    expect(decisionsOf(s.home).map((d) => [d.decision, d.error_code ?? null])).toEqual([
      ['ASK', null],
      ['BLOCK', -32005],
    ]);
  });

  it('without a progressToken, answers the specified -32005 before the client\'s own -32001, and ends the call in the ledger', async () => {
    const s = await setup(() => never);
    fakeClock();
    const error = rpcError(s.proxy.client.callTool({ name: 'delete_file', arguments: { path: s.target } }));
    await until(() => s.approver.requests.length === 1);
    for (let elapsed = 0; elapsed < 65_000; elapsed += 5000) await vi.advanceTimersByTimeAsync(5000);
    vi.useRealTimers();
    expect(await error).toMatchObject({ code: -32005, data: { reason: 'The approval prompt timed out' } });
    // The question is withdrawn too, so nobody approves a call the agent was told was refused.
    expect(s.approver.aborted).toHaveLength(1);
    expect(decisionsOf(s.home).map((d) => [d.decision, d.error_code ?? null])).toEqual([
      ['ASK', null],
      ['BLOCK', -32005],
    ]);
  });
});

describe('nothing runs that the client no longer waits for', () => {
  it('a cancelled ask stops its progress at once, even while the approver has not let go', async () => {
    const s = await setup(() => () => new Promise<ApprovalAnswer>(() => undefined), ['--ask-timeout', '300']);
    const strays: string[] = [];
    s.proxy.client.onerror = (error) => void strays.push(error.message);
    fakeClock();
    const progress: Progress[] = [];
    const cancel = new AbortController();
    const call = s.proxy.client.callTool({ name: 'delete_file', arguments: { path: s.target } }, undefined, { onprogress: (p) => void progress.push(p), signal: cancel.signal }).catch((e: unknown) => e);
    await until(() => s.approver.requests.length === 1);
    await vi.advanceTimersByTimeAsync(25_000);
    expect(progress).toHaveLength(2);
    cancel.abort('moved on');
    await call;
    await until(() => s.approver.aborted.length === 1);
    for (let elapsed = 0; elapsed < 60_000; elapsed += 5000) await vi.advanceTimersByTimeAsync(5000);
    vi.useRealTimers();
    await s.proxy.client.callTool({ name: 'echo', arguments: { message: 'after' } });
    expect(strays.filter((m) => m.includes('progress notification for an unknown token'))).toEqual([]);
    expect(progress).toHaveLength(2);
  });


  it('an approval that arrives after the client cancelled is not used: the call never reaches the server', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    // The approval comes back after the agent has already given up (a person quick on a stale card, a slow runtime).
    let answered = false;
    const approver = new ScriptedApprover(
      (req) =>
        new Promise<ApprovalAnswer>((resolve) =>
          setTimeout(() => {
            answered = true;
            resolve({ outcome: 'approve', token: signApprovalFor(req, home.signer) });
          }, 600),
        ),
    );
    const proxy = await startInProcessProxy({ home: home.home, policy: writePolicy(dir, POLICY), server: SERVERS.fileTools, approver });
    running.push(proxy);
    const target = join(dir, 'victim.txt');
    writeFileSync(target, 'x');
    const cancel = new AbortController();
    const call = proxy.client.callTool({ name: 'delete_file', arguments: { path: target } }, undefined, { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(approver.requests).toHaveLength(1));
    cancel.abort('the agent moved on');
    await call;
    await vi.waitFor(() => expect(answered).toBe(true));
    // A call made after the approval arrived is answered after anything that approval would have forwarded.
    await proxy.client.callTool({ name: 'echo', arguments: { message: 'after' } });
    expect(existsSync(target)).toBe(true);
    expect(approver.aborted).toHaveLength(1);
    const decisions = decisionsOf(home);
    expect(decisions.map((d) => d.decision)).toEqual(['ASK', 'BLOCK']);
    expect(decisions[1]).toMatchObject({ approval: 'cancelled', withdrawn: 'client_cancelled' });
  });

  it('a cancellation of a call the server has is still passed on to the server', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const received = join(dir, 'received.log');
    const proxy = await startInProcessProxy({ home: home.home, policy: writePolicy(dir, POLICY), server: SERVERS.fileTools, approver: new ScriptedApprover(never), env: { MCP_RECEIVED_LOG: received } });
    running.push(proxy);
    const cancel = new AbortController();
    const call = proxy.client.callTool({ name: 'slow', arguments: { ms: 60_000 } }, undefined, { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(readFileSync(received, 'utf8')).toContain('"slow"'));
    cancel.abort('no longer needed');
    await call;
    await proxy.client.callTool({ name: 'echo', arguments: { message: 'after' } });
    expect(readFileSync(received, 'utf8')).toMatch(/"notifications\/cancelled".*"no longer needed"/);
  });

  it('an ask pending when the MCP server stops ends with a final aip.decision, and the client is answered', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const approver = new ScriptedApprover(never);
    const proxy = await startInProcessProxy({ home: home.home, policy: writePolicy(dir, POLICY), server: SERVERS.fileTools, approver });
    running.push(proxy);
    const asked = rpcError(proxy.client.callTool({ name: 'delete_file', arguments: { path: join(dir, 'x') } }));
    await vi.waitFor(() => expect(approver.requests).toHaveLength(1));
    void proxy.client.callTool({ name: 'crash', arguments: {} }).catch(() => undefined);
    expect(await asked).toMatchObject({ code: -32603 });
    await proxy.done;
    expect(approver.aborted).toHaveLength(1);
    expect(decisionsOf(home).map((d) => [d.decision, d.approval ?? null, d.withdrawn ?? null])).toEqual([
      ['ASK', null, null],
      ['BLOCK', 'cancelled', 'proxy_stopped'],
    ]);
  });
});
