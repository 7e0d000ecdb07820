import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src-shared/contract/envelope.js';
import type { CardOf } from '../../../src-shared/schemas/review.js';
import type { Runtime } from '../../app/types.js';
import { useTempDirs } from '../../testing/temp.js';
import { createTestHome, startInProcessProxy, writePolicy, type TestHome } from '../testing/proxy-harness.js';
import { rpcError } from '../testing/rpc-error.js';
import { COCKPIT, onlyPendingCard, startRuntimeAndProxy } from '../testing/runtime-harness.js';
import { never, ScriptedApprover, signApprovalFor } from '../testing/test-approver.js';
import type { ApprovalAnswer, ApprovalRequest } from './approver.js';

/*
 * `x-silas-threats.results: ask` (docs/threat-detection.md): a server's answer carrying injected
 * instructions is held, the person is asked whether it reaches the agent through the same
 * approver and signed single-use approval as a call, and the card cannot be read as a call.
 */

const SERVER = fileURLToPath(new URL('../testing/servers/threats-server.mjs', import.meta.url));
const tempDir = useTempDirs('silas-threats-ask-');
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close().catch(() => undefined);
});

const ASK_RESULTS = '  allowed_tools: [read_page]\n  x-silas-threats:\n    results: ask\n';
const INJECTED = { name: 'read_page', arguments: { url: 'https://news.example.com/a' } };
const PLAIN = { name: 'read_page', arguments: { url: 'https://food.example.com/pasta' } };
const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

function decisions(home: TestHome) {
  const ledger = home.open();
  try {
    expect(ledger.audit.verifyChain()).toMatchObject({ valid: true });
    return [...ledger.audit.since()].filter((e) => e.event === 'aip.decision' && e.data.tool === 'read_page').map((e) => e.data);
  } finally {
    ledger.close();
  }
}

async function withRuntime() {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  return { home, ...(await startRuntimeAndProxy(home, writePolicy(dir, ASK_RESULTS), SERVER, open)) };
}

async function heldCard(runtime: Runtime): Promise<CardOf<'tool_call'>> {
  return (await onlyPendingCard(runtime)) as CardOf<'tool_call'>;
}

describe('results: ask, with the control center', () => {
  it('shows a card about the answer with the findings; allowed, the agent gets the original answer, on the record', async () => {
    const { home, runtime, proxy, notified } = await withRuntime();
    const call = proxy.client.callTool(INJECTED);
    const card = await heldCard(runtime);
    expect(card).toMatchObject({ intent: 'Let the answer of read_page on files reach the agent?', riskLevel: 'high', details: { subject: 'result', tool: 'read_page', rule: 'x-silas-threats.results', args: { result_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } } });
    expect(card.rationale).toMatch(/^The answer of read_page carries .*\(injection rule [a-z_]+ at content\[0\]\.text\)/);
    expect(card.details.findings!.length).toBeGreaterThan(0);
    expect(card.details.findings![0]).toMatchObject({ path: 'content[0].text', excerpt: expect.any(String) });
    // One answer is let through once: no "always allow" for it.
    expect(card.actions.map((a) => a.choice).sort()).toEqual(['allow_once', 'deny']);
    expect(card.notification).toEqual({ title: 'Let the answer of read_page on files reach the agent?', body: `High risk. ${card.rationale}` });
    expect(notified).toContainEqual({ ...card.notification, urgency: 'critical' });

    // The relay never waits for the person: another call is answered meanwhile.
    expect(text(await proxy.client.callTool(PLAIN))).toContain('salted water');

    const decided = (await runtime.router.dispatch('review.decide', { id: card.id, choice: 'allow_once' }, COCKPIT)) as Envelope<unknown>;
    expect(decided.ok).toBe(true);
    expect(text(await call)).toContain('SYSTEM NOTE');
    const held = decisions(home).filter((d) => d.direction === 'downstream');
    expect(held.map((d) => d.decision)).toEqual(['ASK', 'ALLOW']);
    expect(held[1]).toMatchObject({ approval: 'approve', approval_nonce: expect.stringMatching(/^[0-9a-f]{32}$/), args: { result_sha256: card.details.args && (card.details.args as { result_sha256: string }).result_sha256 } });
  });

  it('denied, the agent gets -32004 and never the answer', async () => {
    const { home, runtime, proxy } = await withRuntime();
    const call = rpcError(proxy.client.callTool(INJECTED));
    const card = await heldCard(runtime);
    await runtime.router.dispatch('review.decide', { id: card.id, choice: 'deny' }, COCKPIT);
    const error = await call;
    expect(error.code).toBe(-32004);
    expect(String(error.data.reason)).toMatch(/^The user withheld the answer of read_page/);
    expect(JSON.stringify(error)).not.toContain('SYSTEM NOTE');
    expect(decisions(home).filter((d) => d.direction === 'downstream').map((d) => [d.decision, d.approval ?? null])).toEqual([
      ['ASK', null],
      ['BLOCK', 'deny'],
    ]);
  });
});

/** An approver whose answer for a call and for an answer the test scripts; it records what it was asked. */
function scripted(home: TestHome, forResult: (req: ApprovalRequest, calls: ApprovalRequest[]) => ApprovalAnswer, forCall: (req: ApprovalRequest) => ApprovalAnswer = (req) => ({ outcome: 'approve', token: signApprovalFor(req, home.signer) })) {
  const calls: ApprovalRequest[] = [];
  return new ScriptedApprover((req) => {
    if (req.subject === 'result') return forResult(req, calls);
    calls.push(req);
    return forCall(req);
  });
}

async function withApprover(approver: (home: TestHome) => ScriptedApprover, spec = '  tool_rules:\n    - tool: read_page\n      action: ask\n  x-silas-threats:\n    results: ask\n') {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const scriptedApprover = approver(home);
  const proxy = await startInProcessProxy({ home: home.home, policy: writePolicy(dir, spec), server: SERVER, approver: scriptedApprover });
  open.unshift({ close: () => proxy.close() });
  return { home, proxy, approver: scriptedApprover };
}

describe('the approval binds the answer, not the call', () => {
  it('a token issued for the call cannot let its answer through', async () => {
    // A fresh token for the call (not the consumed one), so only the binding can refuse it.
    const { home, proxy, approver } = await withApprover((h) => scripted(h, (_req, calls) => ({ outcome: 'approve', token: signApprovalFor(calls.at(-1)!, h.signer) })));
    const error = await rpcError(proxy.client.callTool(INJECTED));
    expect(error.code).toBe(-32004);
    expect(String(error.data.reason)).toBe('Approval refused: approval is for other arguments');
    expect(approver.requests.map((r) => r.subject ?? 'call')).toEqual(['call', 'result']);
    expect(decisions(home).at(-1)).toMatchObject({ direction: 'downstream', decision: 'BLOCK', approval_rejected: 'approval is for other arguments' });
  });

  it('a token issued for an answer cannot let a call run, and the answer\'s own token lets the answer through', async () => {
    let answerArgs: unknown;
    const { proxy } = await withApprover((h) =>
      scripted(
        h,
        (req) => {
          answerArgs = req.args;
          return { outcome: 'approve', token: signApprovalFor(req, h.signer) };
        },
        // Once an answer was asked about: the next call is answered with that answer's binding under the call's own id.
        (req) => ({ outcome: 'approve', token: signApprovalFor(answerArgs === undefined ? req : { ...req, args: answerArgs }, h.signer) }),
      ),
    );
    expect(text(await proxy.client.callTool(INJECTED))).toContain('SYSTEM NOTE');
    const error = await rpcError(proxy.client.callTool(INJECTED));
    expect(error.code).toBe(-32004);
    expect(String(error.data.reason)).toBe('Approval refused: approval is for other arguments');
  });
});

describe('while an answer waits for the person', () => {
  it('a cancellation withdraws the question and drops the answer; the id stays in flight until then', async () => {
    const { home, proxy, approver } = await withApprover(() => new ScriptedApprover(never), ASK_RESULTS);
    const controller = new AbortController();
    const call = proxy.client.callTool(INJECTED, undefined, { signal: controller.signal }).catch((e: unknown) => e);
    await expect.poll(() => approver.requests.length, { timeout: 15_000 }).toBe(1);
    expect(approver.requests[0]).toMatchObject({ subject: 'result', tool: 'read_page', display: approver.requests[0]!.args });
    controller.abort('changed my mind');
    await call;
    await expect.poll(() => approver.aborted.length, { timeout: 5_000 }).toBe(1);
    await expect.poll(() => decisions(home).at(-1)?.withdrawn, { timeout: 5_000 }).toBe('client_cancelled');
    expect(decisions(home).at(-1)).toMatchObject({ direction: 'downstream', decision: 'BLOCK', reason: expect.stringMatching(/answer was dropped/) });
  });
});
