import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PendingApproval, ToolCallApprovalRequest } from '../../src-shared/schemas/approval.js';
import type { PendingPlanApproval, PlanApprovalRequest } from '../../src-shared/schemas/plan-approval.js';
import { ApprovalService } from '../approvals/approval-service.js';
import { checkToolCallApproval } from '../approvals/tool-call-approval.js';
import { ApprovalEngine } from '../silas/approval/engine.js';
import { PlanApprovalService } from '../silas/review/plan-approval-service.js';
import { planHash } from '../silas/work/hashes.js';
import { parsePlan } from '../silas/work/plan-parser.js';
import { createTestLedger } from '../testing/ledger.js';
import { useTempDirs } from '../testing/temp.js';
import { DecisionQueue } from './decision-queue.js';

const FIX_BUG = fileURLToPath(new URL('../silas/work/fixtures/spec-13-1-fix-bug.md', import.meta.url));
const tempDir = useTempDirs('silas-decision-queue-');

/** The runtime's arrangement: one queue, both kinds on it, each kind's cockpit event recorded. */
function setup() {
  const ledger = createTestLedger(tempDir());
  const notified: string[] = [];
  const queue = new DecisionQueue({ audit: ledger.audit, notifier: { notify: (n) => notified.push(n.title) } });
  const toolEvents: { pending: PendingApproval[]; paused: boolean }[] = [];
  const planEvents: PendingPlanApproval[][] = [];
  const approvals = new ApprovalService({ audit: ledger.audit, signer: ledger.signer, queue, onChange: (pending, paused) => toolEvents.push({ pending, paused }) });
  const engine = new ApprovalEngine({ db: ledger.db, audit: ledger.audit, signer: ledger.signer });
  const plans = new PlanApprovalService({ audit: ledger.audit, issueToken: (item) => engine.issueToken(item, { verdict: 'approved' }), queue, onChange: (pending) => planEvents.push(pending) });
  const item = parsePlan(readFileSync(FIX_BUG, 'utf8'), { file: FIX_BUG });
  const plan = (timeoutMs = 60_000): PlanApprovalRequest => ({ item, planHash: planHash(item), source: FIX_BUG, timeoutMs });
  const args = { path: '/tmp/report.txt' };
  const toolCall = (timeoutMs = 60_000): ToolCallApprovalRequest => ({ server: 'files', tool: 'delete_file', args, display: args, requestId: 7, sessionId: 's-1', rule: 'ask', reason: 'r', policyName: 'p', timeoutMs });
  const keys = new Map([[ledger.signer.fingerprint, ledger.signer.publicKey as Uint8Array]]);
  const binding = { server: 'files', tool: 'delete_file', args, requestId: 7, sessionId: 's-1' };
  const events = () =>
    ledger.audit
      .tail(100)
      .map((e) => e.event)
      .filter((e) => e.startsWith('approvals.') || e.startsWith('silas.plan_approval.'));
  let tray = -1;
  queue.subscribe(() => (tray = queue.pendingCount()));
  return { ledger, queue, approvals, plans, engine, item, plan, toolCall, keys, binding, events, notified, toolEvents, planEvents, tray: () => tray };
}

afterEach(() => vi.useRealTimers());

describe('one decision queue with a tool call and a plan waiting together', () => {
  it('both wait on one count; the tool call decided first, then the plan, each with its own signed answer', async () => {
    const s = setup();
    const call = s.approvals.request(s.toolCall());
    const plan = s.plans.request(s.plan());
    expect(s.queue.pendingCount()).toBe(2);
    expect(s.tray()).toBe(2);
    expect(s.approvals.list()).toHaveLength(1);
    expect(s.plans.list()).toHaveLength(1);
    expect(s.notified).toEqual(['Approve delete_file on files?', `Approve plan "${s.item.title}"?`]);
    // Each kind's cockpit event carries only its own cards.
    expect(s.toolEvents.at(-1)!.pending.map((c) => c.tool)).toEqual(['delete_file']);
    expect(s.planEvents.at(-1)!.map((c) => c.workItemId)).toEqual([s.item.id]);

    expect(s.approvals.decide(s.approvals.list()[0]!.id, 'allow_once')).toMatchObject({ outcome: 'approved' });
    expect(s.tray()).toBe(1);
    const called = await call;
    if (called.outcome !== 'approve') throw new Error(`expected approve, got ${called.outcome}`);
    expect(checkToolCallApproval(called.approval, s.binding, s.keys, new Date()).ok).toBe(true);

    expect(s.plans.decide(s.plans.list()[0]!.id, 'approve')).toMatchObject({ outcome: 'approved' });
    const planned = await plan;
    if (planned.outcome !== 'approve') throw new Error(`expected approve, got ${planned.outcome}`);
    expect(s.engine.verify(planned.token, s.item)).toMatchObject({ ok: true });
    expect(s.tray()).toBe(0);
    expect(s.events()).toEqual(['approvals.requested', 'silas.plan_approval.requested', 'approvals.approved', 'silas.plan_approval.approved']);
  });

  it('the plan decided first, then the tool call; a second decision on either is refused', async () => {
    const s = setup();
    const call = s.approvals.request(s.toolCall());
    const plan = s.plans.request(s.plan());
    const [planCard] = s.plans.list();
    const [callCard] = s.approvals.list();
    s.plans.decide(planCard!.id, 'deny');
    await expect(plan).resolves.toEqual({ outcome: 'deny', reason: 'denied by the user in the control center' });
    expect(s.approvals.list()).toHaveLength(1);
    s.approvals.decide(callCard!.id, 'deny');
    await expect(call).resolves.toMatchObject({ outcome: 'deny' });
    expect(() => s.plans.decide(planCard!.id, 'approve')).toThrow(/no pending plan approval .*already decided or it expired/);
    expect(() => s.approvals.decide(callCard!.id, 'allow_once')).toThrow(/no pending approval .*already decided or it expired/);
    expect(s.events()).toEqual(['approvals.requested', 'silas.plan_approval.requested', 'silas.plan_approval.denied', 'approvals.denied']);
  });

  it('an id is decided only through its own kind: a plan id is not a tool-call approval', () => {
    const s = setup();
    void s.plans.request(s.plan());
    void s.approvals.request(s.toolCall());
    expect(() => s.approvals.decide(s.plans.list()[0]!.id, 'allow_once')).toThrow(/no pending approval/);
    expect(() => s.plans.decide(s.approvals.list()[0]!.id, 'approve')).toThrow(/no pending plan approval/);
    expect(s.queue.pendingCount()).toBe(2);
  });

  it('one expires while the other is decided: the expired card is withdrawn, the other answered', async () => {
    vi.useFakeTimers();
    const s = setup();
    const call = s.approvals.request(s.toolCall(5_000));
    const plan = s.plans.request(s.plan(60_000));
    vi.advanceTimersByTime(5_000);
    await expect(call).resolves.toEqual({ outcome: 'timeout' });
    expect(s.approvals.list()).toEqual([]);
    expect(s.tray()).toBe(1);
    s.plans.decide(s.plans.list()[0]!.id, 'approve');
    await expect(plan).resolves.toMatchObject({ outcome: 'approve' });
    expect(s.events()).toEqual(['approvals.requested', 'silas.plan_approval.requested', 'approvals.timed_out', 'silas.plan_approval.approved']);
    // The decided plan's timer is gone: nothing fires later.
    vi.advanceTimersByTime(120_000);
    expect(s.events()).not.toContain('silas.plan_approval.timed_out');
  });

  it('one pause refuses both kinds at once, and is audited once', async () => {
    const s = setup();
    s.queue.setPaused(true);
    expect(s.approvals.isPaused()).toBe(true);
    expect(s.toolEvents.at(-1)).toEqual({ pending: [], paused: true });
    await expect(s.approvals.request(s.toolCall())).resolves.toEqual({ outcome: 'deny', reason: 'approvals are paused in the Silas control center' });
    await expect(s.plans.request(s.plan())).resolves.toEqual({ outcome: 'deny', reason: 'approvals are paused in the Silas control center' });
    expect(s.queue.pendingCount()).toBe(0);
    s.queue.setPaused(false);
    expect(s.events()).toEqual(['approvals.paused', 'approvals.refused_paused', 'silas.plan_approval.refused_paused', 'approvals.resumed']);
  });

  it('declineAll answers both kinds "no" at shutdown, audited as shutdown denials', async () => {
    const s = setup();
    const call = s.approvals.request(s.toolCall());
    const plan = s.plans.request(s.plan());
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

  it('a kind declining its own cards leaves the other kind waiting', async () => {
    const s = setup();
    const call = s.approvals.request(s.toolCall());
    void s.plans.request(s.plan());
    s.approvals.declineAll('stop');
    await expect(call).resolves.toEqual({ outcome: 'deny', reason: 'stop' });
    expect(s.plans.pendingCount()).toBe(1);
    expect(s.tray()).toBe(1);
  });
});
