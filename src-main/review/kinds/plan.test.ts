import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../../../src-shared/errors.js';
import type { PlanApprovalRequest } from '../../../src-shared/schemas/plan-approval.js';
import type { CardOf, ReviewQueueView } from '../../../src-shared/schemas/review.js';
import { createHandlers } from '../../control/handlers.js';
import { ControlRouter, type CallContext } from '../../control/router.js';
import { testReview } from '../../testing/approvals.js';
import { createTestLedger } from '../../testing/ledger.js';
import { useTempDirs } from '../../testing/temp.js';
import { testServices } from '../../testing/handlers.js';
import { parsePlan } from '../../silas/work/plan-parser.js';
import { planHash } from '../../silas/work/hashes.js';
import { ControlSocketPlanApprover } from '../../control/socket-asker.js';
import { workItemSubject } from '../../silas/work/plan-subjects.js';

const FIX_BUG = fileURLToPath(new URL('../../silas/work/fixtures/spec-13-1-fix-bug.md', import.meta.url));
const tempDir = useTempDirs('silas-plan-approval-');

function setup(options: { paused?: boolean } = {}) {
  const ledger = createTestLedger(tempDir());
  const notified: string[] = [];
  const { queue, kinds, engine } = testReview(ledger.db, ledger.audit, { signer: ledger.signer, notifier: { notify: (n) => notified.push(n.title) }, pausedElsewhere: () => options.paused ?? false });
  const changes: number[] = [];
  queue.subscribe(() => changes.push(queue.view().cards.length));
  // The plan kind on the one queue, as the handlers use it.
  const service = {
    request: (request: PlanApprovalRequest) => queue.ask(kinds.plan, request),
    decide: (id: string, choice: string) => queue.decide(id, choice),
    list: () => queue.view().cards.filter((card): card is CardOf<'plan'> => card.kind === 'plan'),
    declineAll: (reason: string) => queue.declineAll(reason),
  };
  const item = parsePlan(readFileSync(FIX_BUG, 'utf8'), { file: FIX_BUG });
  const request: PlanApprovalRequest = { item, planHash: planHash(item), source: FIX_BUG, timeoutMs: 60_000 };
  const events = () => ledger.audit.tail(50).map((e) => e.event);
  return { ledger, engine, service, item, request, changes, notified, events };
}

afterEach(() => vi.useRealTimers());

describe('the plan kind', () => {
  it('shows a card for the exact plan, and Approve returns an owner-signed token the engine accepts for that plan only', async () => {
    const { service, request, item, engine, changes, notified, events } = setup();
    const answer = service.request(request);
    const [card] = service.list();
    expect(card).toMatchObject({ kind: 'plan', riskLevel: 'medium', details: { workItemId: 'task-fix-tz-bug', type: 'task', title: item.title, planHash: request.planHash, source: FIX_BUG } });
    expect(card!.details.verify.map((c) => c.name)).toEqual(['tests_pass', 'lint_clean']);
    expect(card!.actions.map((a) => [a.choice, a.role])).toEqual([['approve', 'recommended'], ['deny', 'decline']]);
    // The same words the terminal card shows: the plan's own briefing, and why the risk is what it is.
    expect(card!.rationale).toMatch(/^The shift roster generator produces overlapping shifts/);
    expect(card!.riskReasons).toEqual(['an agent runs commands in a sandbox with the network denied']);
    expect(changes.at(-1)).toBe(1);
    expect(notified[0]).toContain(item.title);

    expect(service.decide(card!.id, 'approve')).toEqual({ id: card!.id, kind: 'plan', choice: 'approve', outcome: 'approved' });
    const result = await answer;
    if (result.outcome !== 'approve') throw new Error(`expected approve, got ${result.outcome}`);
    expect(result.token.plan_hash).toBe(request.planHash);
    expect(service.list()).toEqual([]);
    expect(events()).toEqual(expect.arrayContaining(['silas.plan_approval.requested', 'silas.plan_approval.approved']));

    const edited = { ...item, body: `${item.body}\nAlso delete the tests.` };
    expect(engine.verify(result.token, workItemSubject(edited))).toMatchObject({ ok: false });
    expect(engine.verify(result.token, workItemSubject(item))).toMatchObject({ ok: true });
    expect(engine.verify(result.token, workItemSubject(item))).toMatchObject({ ok: false });
  });

  it('refuses a request whose plan hash is not the hash of the plan it carries, and queues nothing', () => {
    const { service, request, events } = setup();
    expect(() => service.request({ ...request, planHash: 'a'.repeat(64) })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgs, message: expect.stringMatching(/^planHash: /) }));
    expect(service.list()).toEqual([]);
    expect(events()).not.toContain('silas.plan_approval.requested');
  });

  it('answers deny on Deny and timeout when no one decides, each audited', async () => {
    const { service, request, events } = setup();
    const denied = service.request(request);
    service.decide(service.list()[0]!.id, 'deny');
    await expect(denied).resolves.toMatchObject({ outcome: 'deny' });

    vi.useFakeTimers();
    const timedOut = service.request({ ...request, timeoutMs: 5000 });
    vi.advanceTimersByTime(5000);
    await expect(timedOut).resolves.toEqual({ outcome: 'timeout' });
    expect(events()).toEqual(expect.arrayContaining(['silas.plan_approval.denied', 'silas.plan_approval.timed_out']));
    expect(() => service.decide('no-such-id', 'approve')).toThrow(/already decided or it expired/);
  });

  it('denies at once while approvals are paused, and declines everything at shutdown', async () => {
    const paused = setup({ paused: true });
    await expect(paused.service.request(paused.request)).resolves.toMatchObject({ outcome: 'deny', reason: expect.stringContaining('paused') });
    expect(paused.service.list()).toEqual([]);

    const { service, request } = setup();
    const pending = service.request(request);
    service.declineAll('shutting down');
    await expect(pending).resolves.toEqual({ outcome: 'deny', reason: 'shutting down' });
  });
});

describe('plans.requestApproval and review.*: each side bound to its capability', () => {
  const ctx = (transport: CallContext['transport']) => ({ transport }) as CallContext;

  it('takes plan requests only from the local socket, and decisions only from the cockpit', async () => {
    const { ledger, request } = setup();
    const services = testServices(ledger.db, ledger.audit);
    const router = new ControlRouter(createHandlers({ audit: ledger.audit, ...services, runtimeInfo: () => { throw new Error('unused'); } }), { error: () => undefined });
    expect(await router.dispatch('plans.requestApproval', request, ctx('websocket'))).toMatchObject({ ok: false, error: { code: ErrorCode.Unauthorized } });
    const answer = router.dispatch('plans.requestApproval', request, ctx('local-socket'));
    await expect.poll(async () => ((await router.dispatch('review.list', {}, ctx('websocket'))) as { value: ReviewQueueView }).value.cards.length).toBe(1);
    const { value } = (await router.dispatch('review.list', {}, ctx('websocket'))) as { value: ReviewQueueView };
    expect(await router.dispatch('review.decide', { id: value.cards[0]!.id, choice: 'approve' }, ctx('local-socket'))).toMatchObject({ ok: false, error: { code: ErrorCode.Unauthorized } });
    await router.dispatch('review.decide', { id: value.cards[0]!.id, choice: 'deny' }, ctx('websocket'));
    await expect(answer).resolves.toMatchObject({ ok: true, value: { outcome: 'deny' } });
  });
});

describe('ControlSocketPlanApprover', () => {
  it('answers unreachable at once, naming the fix, when no control center runs for the home', async () => {
    const { request } = setup();
    const answer = await new ControlSocketPlanApprover(tempDir()).request(request);
    expect(answer).toMatchObject({ outcome: 'unreachable', reason: expect.stringMatching(/not running.*silas start.*--approve-here/) });
  });
});
