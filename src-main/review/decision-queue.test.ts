import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ToolCallApprovalRequest } from '../../src-shared/schemas/approval.js';
import type { PlanApprovalRequest } from '../../src-shared/schemas/plan-approval.js';
import { DecisionCard } from '../../src-shared/schemas/review.js';
import { ApprovalConsumer } from '../mcp/proxy/approval-consumer.js';
import { planHash } from '../silas/work/hashes.js';
import { parsePlan } from '../silas/work/plan-parser.js';
import { bindingOf, testReview } from '../testing/approvals.js';
import { ENDED_MEMORY } from './decision-queue.js';
import { createTestLedger } from '../testing/ledger.js';
import { useTempDirs } from '../testing/temp.js';
import { workItemSubject } from '../silas/work/plan-subjects.js';

const FIX_BUG = fileURLToPath(new URL('../silas/work/fixtures/spec-13-1-fix-bug.md', import.meta.url));
const tempDir = useTempDirs('silas-decision-queue-');

/** The runtime's arrangement: one queue, one engine, both asking kinds on it. */
function setup() {
  const ledger = createTestLedger(tempDir());
  const notified: string[] = [];
  const { queue, kinds, engine } = testReview(ledger.db, ledger.audit, { signer: ledger.signer, notifier: { notify: (n) => notified.push(n.title) } });
  const item = parsePlan(readFileSync(FIX_BUG, 'utf8'), { file: FIX_BUG });
  const plan = (timeoutMs = 60_000): PlanApprovalRequest => ({ item, planHash: planHash(item), source: FIX_BUG, timeoutMs });
  const args = { path: '/tmp/report.txt' };
  const toolCall = (timeoutMs = 60_000): ToolCallApprovalRequest => ({ server: 'files', tool: 'delete_file', args, display: args, requestId: 7, sessionId: 's-1', rule: 'ask', reason: 'r', policyName: 'p', timeoutMs });
  const keys = new Map([[ledger.signer.fingerprint, ledger.signer.publicKey as Uint8Array]]);
  const proxy = new ApprovalConsumer(ledger.db, ledger.audit, () => keys, undefined);
  const binding = bindingOf({ server: 'files', tool: 'delete_file', args, requestId: 7, sessionId: 's-1' });
  const events = () =>
    ledger.audit
      .tail(100)
      .map((e) => e.event)
      .filter((e) => e.startsWith('approvals.') || e.startsWith('silas.plan_approval.'));
  let tray = -1;
  let published = 0;
  queue.subscribe(() => {
    tray = queue.pendingCount();
    published += 1;
  });
  const card = (kind: string) => queue.view().cards.find((c) => c.kind === kind)!;
  return { ledger, queue, kinds, engine, item, plan, toolCall, proxy, binding, events, notified, card, tray: () => tray, published: () => published };
}

afterEach(() => vi.useRealTimers());

describe('one decision queue with a tool call and a plan waiting together', () => {
  it('both wait as §0.5.3 cards on one count; the tool call decided first, then the plan; each token works once and its replay is refused', async () => {
    const s = setup();
    const call = s.queue.ask(s.kinds.toolCall, s.toolCall());
    const plan = s.queue.ask(s.kinds.plan, s.plan());
    expect(s.queue.pendingCount()).toBe(2);
    expect(s.tray()).toBe(2);
    const { cards } = s.queue.view();
    expect(cards.map((c) => DecisionCard.parse(c).kind)).toEqual(['tool_call', 'plan']);
    expect(s.card('tool_call')).toMatchObject({ intent: 'delete_file on files wants to run', riskLevel: 'high', details: { server: 'files', tool: 'delete_file', args: { path: '/tmp/report.txt' } } });
    // High risk: the decline is recommended and comes first; the allowing actions follow in the danger tone.
    expect(s.card('tool_call').actions.map((a) => [a.choice, a.role, a.tone])).toEqual([
      ['deny', 'recommended', 'recommended'],
      ['always_allow', 'alternative', 'danger'],
      ['allow_once', 'alternative', 'danger'],
    ]);
    expect(s.card('plan')).toMatchObject({ intent: `Run plan: ${s.item.title} (${s.item.type})`, details: { workItemId: s.item.id, planHash: planHash(s.item) } });
    expect(s.notified).toEqual(['Approve delete_file on files?', `Approve plan "${s.item.title}"?`]);

    expect(s.queue.decide(s.card('tool_call').id, 'allow_once')).toMatchObject({ kind: 'tool_call', outcome: 'approved' });
    expect(s.tray()).toBe(1);
    const called = await call;
    if (called.outcome !== 'approve') throw new Error(`expected approve, got ${called.outcome}`);
    expect(called.token).toMatchObject({ scope: 'single_step', key_fingerprint: s.ledger.signer.fingerprint });
    expect(s.proxy.consume(called.token, s.binding, () => undefined)).toMatchObject({ ok: true });
    expect(s.proxy.consume(called.token, s.binding, () => undefined)).toEqual({ ok: false, reason: 'approval was already used (a replayed approval)' });
    // A tool call's token is no plan approval: the scope and the subject are signed.
    expect(s.engine.verify(called.token, workItemSubject(s.item))).toMatchObject({ ok: false, code: 'E_APPROVAL_SCOPE' });

    expect(s.queue.decide(s.card('plan').id, 'approve')).toMatchObject({ kind: 'plan', outcome: 'approved' });
    const planned = await plan;
    if (planned.outcome !== 'approve') throw new Error(`expected approve, got ${planned.outcome}`);
    expect(s.proxy.consume(planned.token, s.binding, () => undefined)).toMatchObject({ ok: false });
    expect(s.engine.verify(planned.token, workItemSubject(s.item))).toMatchObject({ ok: true });
    expect(s.engine.verify(planned.token, workItemSubject(s.item))).toMatchObject({ ok: false, code: 'E_APPROVAL_REPLAY' });
    expect(s.tray()).toBe(0);
    expect(s.events()).toEqual(['approvals.requested', 'silas.plan_approval.requested', 'approvals.approved', 'silas.plan_approval.approved']);
    // Both tokens came from the one engine: each issue is on the record.
    expect(s.ledger.audit.tail(100).filter((e) => e.event === 'silas.approval.issued').map((e) => e.data.scope)).toEqual(['single_step', 'full_plan']);
  });

  it('the plan decided first, then the tool call; a second decision on either is refused', async () => {
    const s = setup();
    const call = s.queue.ask(s.kinds.toolCall, s.toolCall());
    const plan = s.queue.ask(s.kinds.plan, s.plan());
    const planCard = s.card('plan');
    const callCard = s.card('tool_call');
    s.queue.decide(planCard.id, 'deny');
    await expect(plan).resolves.toEqual({ outcome: 'deny', reason: 'denied by the user in the control center' });
    expect(s.queue.view().cards).toHaveLength(1);
    s.queue.decide(callCard.id, 'deny');
    await expect(call).resolves.toMatchObject({ outcome: 'deny' });
    expect(() => s.queue.decide(planCard.id, 'approve')).toThrow(/no pending decision .*already decided or it expired/);
    expect(() => s.queue.decide(callCard.id, 'allow_once')).toThrow(/no pending decision .*already decided or it expired/);
    expect(s.events()).toEqual(['approvals.requested', 'silas.plan_approval.requested', 'silas.plan_approval.denied', 'approvals.denied']);
  });

  it('a card accepts only the choices it offers: a plan cannot be "always allowed", a tool call cannot be "approved"', () => {
    const s = setup();
    void s.queue.ask(s.kinds.plan, s.plan());
    void s.queue.ask(s.kinds.toolCall, s.toolCall());
    expect(() => s.queue.decide(s.card('plan').id, 'always_allow')).toThrow(/choice: "always_allow" is not offered by this plan card; choose one of (approve|deny), (approve|deny)/);
    expect(() => s.queue.decide(s.card('tool_call').id, 'approve')).toThrow(/not offered by this tool_call card/);
    expect(s.queue.pendingCount()).toBe(2);
    expect(s.events()).toEqual(['silas.plan_approval.requested', 'approvals.requested']);
  });

  it('one expires while the other is decided: the expired card is withdrawn, the other answered', async () => {
    vi.useFakeTimers();
    const s = setup();
    const call = s.queue.ask(s.kinds.toolCall, s.toolCall(5_000));
    const plan = s.queue.ask(s.kinds.plan, s.plan(60_000));
    vi.advanceTimersByTime(5_000);
    await expect(call).resolves.toEqual({ outcome: 'timeout' });
    expect(s.queue.view().cards.map((c) => c.kind)).toEqual(['plan']);
    expect(s.tray()).toBe(1);
    s.queue.decide(s.card('plan').id, 'approve');
    await expect(plan).resolves.toMatchObject({ outcome: 'approve' });
    expect(s.events()).toEqual(['approvals.requested', 'silas.plan_approval.requested', 'approvals.timed_out', 'silas.plan_approval.approved']);
    vi.advanceTimersByTime(120_000);
    expect(s.events()).not.toContain('silas.plan_approval.timed_out');
  });

  it('a withdrawn or expired card refuses a late decision with what happened; the memory of them is bounded', async () => {
    vi.useFakeTimers();
    const s = setup();
    const withdraw = new AbortController();
    const call = s.queue.ask(s.kinds.toolCall, s.toolCall(), { signal: withdraw.signal });
    const id = s.card('tool_call').id;
    withdraw.abort('the agent cancelled the call');
    await expect(call).resolves.toEqual({ outcome: 'deny', reason: 'the agent cancelled the call' });
    expect(() => s.queue.decide(id, 'allow_once')).toThrow(/^this request was withdrawn: the agent cancelled the call; nothing ran — reload Review$/);
    void s.queue.ask(s.kinds.toolCall, s.toolCall(5_000));
    const expired = s.card('tool_call').id;
    vi.advanceTimersByTime(5_000);
    expect(() => s.queue.decide(expired, 'allow_once')).toThrow(/^this request expired: nobody answered within 5 s; nothing ran/);
    // Withdrawn before it was asked: no card at all.
    await expect(s.queue.ask(s.kinds.toolCall, s.toolCall(), { signal: AbortSignal.abort('gone') })).resolves.toEqual({ outcome: 'deny', reason: 'gone' });
    expect(s.queue.pendingCount()).toBe(0);
    for (let i = 0; i < ENDED_MEMORY; i += 1) {
      const c = new AbortController();
      void s.queue.ask(s.kinds.toolCall, s.toolCall(), { signal: c.signal });
      c.abort('later');
    }
    expect(() => s.queue.decide(id, 'allow_once')).toThrow(/no pending decision/);
    expect(s.ledger.audit.tail(1000).filter((e) => e.event === 'approvals.withdrawn')).toHaveLength(ENDED_MEMORY + 1);
  });

  it('one pause refuses both kinds at once, is published and audited once', async () => {
    const s = setup();
    s.queue.setPaused(true);
    expect(s.queue.view()).toEqual({ cards: [], paused: true, seq: 1, total: 0 });
    expect(s.published()).toBe(1);
    await expect(s.queue.ask(s.kinds.toolCall, s.toolCall())).resolves.toEqual({ outcome: 'deny', reason: 'approvals are paused in the Silas control center' });
    await expect(s.queue.ask(s.kinds.plan, s.plan())).resolves.toEqual({ outcome: 'deny', reason: 'approvals are paused in the Silas control center' });
    expect(s.queue.pendingCount()).toBe(0);
    s.queue.setPaused(false);
    expect(s.events()).toEqual(['approvals.paused', 'approvals.refused_paused', 'silas.plan_approval.refused_paused', 'approvals.resumed']);
  });

  it('declineAll answers both kinds "no" at shutdown, audited as shutdown denials', async () => {
    const s = setup();
    const call = s.queue.ask(s.kinds.toolCall, s.toolCall());
    const plan = s.queue.ask(s.kinds.plan, s.plan());
    s.queue.declineAll('the Silas control center is shutting down');
    await expect(call).resolves.toEqual({ outcome: 'deny', reason: 'the Silas control center is shutting down' });
    await expect(plan).resolves.toEqual({ outcome: 'deny', reason: 'the Silas control center is shutting down' });
    expect(s.tray()).toBe(0);
    const denials = s.ledger.audit.tail(10).filter((e) => e.event.endsWith('.denied'));
    expect(denials.map((e) => [e.event, (e.data as { shutdown?: boolean }).shutdown])).toEqual([
      ['approvals.denied', true],
      ['silas.plan_approval.denied', true],
    ]);
  });

  it('a "yes" whose audit entry cannot be written leaves the card waiting and answers nothing', async () => {
    const s = setup();
    let settled = false;
    void s.queue.ask(s.kinds.plan, s.plan()).then(() => (settled = true));
    const id = s.card('plan').id;
    const append = s.ledger.audit.append.bind(s.ledger.audit);
    const spy = vi.spyOn(s.ledger.audit, 'append').mockImplementation((event, data) => {
      if (event === 'silas.plan_approval.approved') throw new Error('disk full');
      return append(event, data);
    });
    expect(() => s.queue.decide(id, 'approve')).toThrow('disk full');
    spy.mockRestore();
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(s.queue.view().cards.map((c) => c.id)).toEqual([id]);
  });
});
