import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { createTestHome, SERVERS, startInProcessProxy, writePolicy, type InProcessProxy } from '../testing/proxy-harness.js';
import { never, ScriptedApprover, signApprovalFor } from '../testing/test-approver.js';
import type { ApprovalAnswer, ApprovalRequest } from './approver.js';
import { UnreachableApprover } from './approver.js';
import { rpcError } from '../testing/rpc-error.js';

const tempDir = useTempDirs('silas-ask-');
const running: InProcessProxy[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.close().catch(() => undefined);
});

const POLICY = '  allowed_tools: [echo, slow]\n  tool_rules:\n    - tool: delete_file\n      action: ask\n';

async function setup(answer: ConstructorParameters<typeof ScriptedApprover>[0], options: { askTimeoutMs?: number; sessionId?: string; dir?: string; home?: ReturnType<typeof createTestHome> } = {}) {
  const dir = options.dir ?? tempDir();
  const home = options.home ?? createTestHome(join(dir, 'home'));
  const approver = new ScriptedApprover(answer);
  const proxy = await startInProcessProxy({ home: home.home, policy: writePolicy(dir, POLICY), server: SERVERS.fileTools, approver, askTimeoutMs: options.askTimeoutMs, sessionId: options.sessionId });
  running.push(proxy);
  const target = join(dir, 'victim.txt');
  writeFileSync(target, 'x');
  return { dir, home, approver, proxy, target, del: () => proxy.client.callTool({ name: 'delete_file', arguments: { path: target } }) };
}

function auditOf(home: ReturnType<typeof createTestHome>) {
  const ledger = home.open();
  try {
    expect(ledger.audit.verifyChain()).toMatchObject({ valid: true });
    return [...ledger.audit.since()].filter((e) => e.event === 'aip.decision' && e.data.tool === 'delete_file').map((e) => e.data);
  } finally {
    ledger.close();
  }
}

describe('ask: human approval through the Approver', () => {
  it('forwards a call approved with a valid signature, consuming its nonce with the audit entry', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const { proxy, approver, target, del } = await setup((req) => ({ outcome: 'approve', token: signApprovalFor(req, home.signer) }), { dir, home });
    expect(await del()).toMatchObject({ content: [{ text: `deleted ${target}` }] });
    expect(existsSync(target)).toBe(false);
    expect(approver.requests[0]).toMatchObject({ server: 'files', tool: 'delete_file', args: { path: target }, requestId: 1, sessionId: proxy.sessionId, rule: 'delete_file', policyName: 'proxy-test' });
    const decisions = auditOf(home);
    expect(decisions.map((d) => d.decision)).toEqual(['ASK', 'ALLOW']);
    expect(decisions[1]).toMatchObject({ approval: 'approve', approval_nonce: expect.stringMatching(/^[0-9a-f]{32}$/), approval_key: home.signer.fingerprint });
  });

  it('refuses a replayed approval (same session, id and arguments) with -32004 and audits it', async () => {
    const dir = tempDir();
    let captured: unknown;
    const first = await setup((req) => ({ outcome: 'approve', token: (captured = signApprovalFor(req, first.home.signer)) }), { sessionId: 'fixed-session', dir });
    await first.del();
    await running.pop()!.close();
    // A second proxy run reusing the session id; the approver replays the consumed approval.
    const second = await setup(() => ({ outcome: 'approve', token: captured as ApprovalToken }), { sessionId: 'fixed-session', dir, home: first.home });
    const error = await rpcError(second.del());
    expect(error).toMatchObject({ code: -32004, data: { tool: 'delete_file', reason: expect.stringMatching(/already used \(a replayed approval\)/) } });
    expect(existsSync(second.target)).toBe(true);
    expect(auditOf(first.home).at(-1)).toMatchObject({ decision: 'BLOCK', error_code: -32004, approval_rejected: expect.stringMatching(/replayed/) });
  });

  it('refuses an altered or expired approval, naming the problem', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    let round = 0;
    const answer = (req: ApprovalRequest): ApprovalAnswer => {
      round += 1;
      if (round === 1) return { outcome: 'approve', token: signApprovalFor({ ...req, args: { path: '/somewhere/else' } }, home.signer) };
      const expired = signApprovalFor(req, home.signer, { now: new Date(Date.now() - 120_000), ttlMs: 60_000 });
      return { outcome: 'approve', token: expired };
    };
    const s = await setup(answer, { dir, home });
    expect(await rpcError(s.del())).toMatchObject({ code: -32004, data: { reason: 'Approval refused: approval is for other arguments' } });
    expect(await rpcError(s.del())).toMatchObject({ code: -32004, data: { reason: 'Approval refused: approval has expired' } });
    expect(existsSync(s.target)).toBe(true);
  });

  it('answers a denial with -32004 and the person\'s reason', async () => {
    const s = await setup(() => ({ outcome: 'deny', reason: 'not today' }));
    expect(await rpcError(s.del())).toEqual({ code: -32004, message: 'User denied', data: { tool: 'delete_file', reason: 'The user denied the request: not today' } });
    expect(auditOf(s.home).map((d) => [d.decision, d.error_code ?? null])).toEqual([
      ['ASK', null],
      ['BLOCK', -32004],
    ]);
  });

  it('answers -32005 when nobody decides within the ask timeout, and withdraws the request', async () => {
    const s = await setup(never, { askTimeoutMs: 300 });
    expect(await rpcError(s.del())).toMatchObject({ code: -32005, data: { reason: 'The approval prompt timed out' } });
    expect(s.approver.aborted).toHaveLength(1);
  });

  it('answers -32005 at once when the approver is unreachable', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const proxy = await startInProcessProxy({ home: home.home, policy: writePolicy(dir, POLICY), server: SERVERS.fileTools, approver: new UnreachableApprover() });
    running.push(proxy);
    expect(await rpcError(proxy.client.callTool({ name: 'delete_file', arguments: { path: join(dir, 'x') } }))).toMatchObject({
      code: -32005,
      data: { reason: expect.stringMatching(/not reachable.*not running \(no HOME\/control\.sock\)/) },
    });
  });

  it('keeps ten other calls flowing while an ask waits for the person', async () => {
    let release!: (answer: ApprovalAnswer) => void;
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const s = await setup((req) => new Promise<ApprovalAnswer>((resolve) => (release = () => resolve({ outcome: 'approve', token: signApprovalFor(req, home.signer) }))), { dir, home });
    let askDone = false;
    const asked = s.del().then((r) => ((askDone = true), r));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const echoes = await Promise.all(Array.from({ length: 10 }, (_, i) => s.proxy.client.callTool({ name: 'echo', arguments: { message: `m${i}` } })));
    expect(echoes.map((r) => (r as { content: { text: string }[] }).content[0]!.text)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    expect(askDone).toBe(false);
    release({ outcome: 'timeout' });
    expect(await asked).toMatchObject({ content: [{ text: `deleted ${s.target}` }] });
  });
});
