import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../../../src-shared/schemas/approval.js';
import type { PendingPlanApproval } from '../../../../src-shared/schemas/plan-approval.js';
import { pendingApproval } from '../../../test/approval-fixtures.js';
import { FakeTransport } from '../../../test/fake-transport.js';
import { pendingPlan } from '../../../test/plan-fixtures.js';
import { flush, renderCockpit } from '../../../test/render-cockpit.js';
import { ReviewPage } from './ReviewPage.js';

afterEach(cleanup);

function runtime(pending: PendingApproval[], paused = false, plans: PendingPlanApproval[] = []): FakeTransport {
  return new FakeTransport('connected')
    .handle('approvals.list', () => ({ ok: true, value: { pending, paused } }))
    .handle('plans.list', () => ({ ok: true, value: { pending: plans } }));
}

async function renderReview(transport: FakeTransport) {
  const harness = renderCockpit(<ReviewPage />, { transport });
  await flush();
  return harness;
}

const activeCard = () => screen.getByRole('article', { name: /^Approval request: / });
const activePlan = () => screen.getByRole('article', { name: /^Plan approval: / });

describe('ReviewPage', () => {
  it('shows a calm empty state when nothing waits', async () => {
    await renderReview(runtime([]));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Review');
    expect(screen.getByText('No decisions waiting')).toBeTruthy();
    expect(screen.queryByRole('article')).toBeNull();
    expect(screen.queryByRole('list', { name: 'Up next' })).toBeNull();
  });

  it('shows the oldest card as the one active card and the rest as up next, intent and risk only', async () => {
    await renderReview(runtime([pendingApproval(3, { risk: 'high', tool: 'delete_file' }), pendingApproval(1), pendingApproval(2)]));
    const card = screen.getByRole('article', { name: 'Approval request: read_file_1 on filesystem' });
    expect(screen.getAllByRole('article')).toHaveLength(1);
    expect(within(card).getByRole('heading', { name: 'read_file_1 on filesystem wants to run' })).toBeTruthy();
    expect(within(card).getByText('Medium risk')).toBeTruthy();
    expect(card.textContent).toContain('Reading files outside the project asks first.');
    expect(card.textContent).toContain('tools.read_file_*');
    expect(card.textContent).toContain('workstation');
    expect(within(card).getByRole('timer', { name: 'Time left' })).toBeTruthy();

    const upNext = screen.getByRole('list', { name: 'Up next' });
    expect(upNext.tagName).toBe('OL');
    expect(within(upNext).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'read_file_2 on filesystem wants to runMedium risk',
      'delete_file on filesystem wants to runHigh risk',
    ]);
    expect(within(upNext).queryByRole('button')).toBeNull();
  });

  it('decides the active card, disabling every button until the runtime answers', async () => {
    let answer: () => void = () => {};
    const transport = runtime([pendingApproval(1), pendingApproval(2)]).handle(
      'approvals.decide',
      (args) =>
        new Promise((resolve) => {
          answer = () => resolve({ ok: true, value: { id: (args as { id: string }).id, outcome: 'approved' } });
        }),
    );
    await renderReview(transport);
    fireEvent.click(within(activeCard()).getByRole('button', { name: 'Allow once' }));
    expect(transport.callsTo('approvals.decide')).toEqual([{ id: 'approval-1', decision: 'allow_once' }]);
    for (const name of ['Allow once', 'Always allow', 'Deny']) expect((within(activeCard()).getByRole('button', { name }) as HTMLButtonElement).disabled).toBe(true);
    expect(activeCard().getAttribute('aria-busy')).toBe('true');

    await act(async () => answer());
    await flush();
    expect(activeCard().getAttribute('aria-label')).toBe('Approval request: read_file_2 on filesystem');
    expect((within(activeCard()).getByRole('button', { name: 'Deny' }) as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(within(activeCard()).getByRole('button', { name: 'Deny' }));
    expect(transport.callsTo('approvals.decide')).toEqual([
      { id: 'approval-1', decision: 'allow_once' },
      { id: 'approval-2', decision: 'deny' },
    ]);
  });

  it('sends always_allow from the Always allow button', async () => {
    const transport = runtime([pendingApproval(1)]).handle('approvals.decide', (args) => ({ ok: true, value: { id: (args as { id: string }).id, outcome: 'approved' } }));
    await renderReview(transport);
    fireEvent.click(within(activeCard()).getByRole('button', { name: /^Always allow/ }));
    expect(transport.callsTo('approvals.decide')).toEqual([{ id: 'approval-1', decision: 'always_allow' }]);
    await flush();
    expect(screen.getByText('No decisions waiting')).toBeTruthy();
  });

  it('shows a failed decision inline with the runtime message and lets the person retry', async () => {
    const transport = runtime([pendingApproval(1)]).handle('approvals.decide', () => ({
      ok: false,
      error: { code: 'E_DB_FAILURE', message: 'database is locked' },
    }));
    await renderReview(transport);
    fireEvent.click(within(activeCard()).getByRole('button', { name: 'Deny' }));
    await flush();
    expect(within(activeCard()).getByRole('alert').textContent).toBe('Could not send your decision: database is locked (E_DB_FAILURE)');
    expect((within(activeCard()).getByRole('button', { name: 'Deny' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('follows approvals.changed events', async () => {
    const transport = runtime([]);
    await renderReview(transport);
    act(() => transport.emit('approvals.changed', { pending: [pendingApproval(4)], paused: false }));
    expect(activeCard().getAttribute('aria-label')).toBe('Approval request: read_file_4 on filesystem');
    act(() => transport.emit('approvals.changed', { pending: [], paused: false }));
    expect(screen.getByText('No decisions waiting')).toBeTruthy();
  });

  it('warns when more than five medium+ approvals wait, without disabling anything', async () => {
    const five = Array.from({ length: 5 }, (_, i) => pendingApproval(i + 1, { risk: i < 2 ? 'high' : 'medium' }));
    const transport = runtime([...five, pendingApproval(50, { risk: 'low' })]);
    await renderReview(transport);
    expect(screen.queryByRole('status')).toBeNull();
    act(() => transport.emit('approvals.changed', { pending: [...five, pendingApproval(6, { risk: 'critical' })], paused: false }));
    const cue = screen.getByRole('status');
    expect(cue.textContent).toContain('6 approvals at medium risk or higher are waiting');
    expect(cue.textContent).toContain('1 critical, 2 high, 3 medium');
    expect(within(activeCard()).getAllByRole('button').every((button) => !(button as HTMLButtonElement).disabled)).toBe(true);
  });

  it('says when approvals are paused', async () => {
    await renderReview(runtime([], true));
    expect(screen.getByRole('status').textContent).toBe('Approvals are paused — new requests are declined');
  });

  it('shows why the queue could not be loaded', async () => {
    const transport = new FakeTransport('connected')
      .handle('approvals.list', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'runtime gone' } }))
      .handle('plans.list', () => ({ ok: true, value: { pending: [] } }));
    await renderReview(transport);
    expect(screen.getByRole('alert').textContent).toBe('Could not load the decision queue: runtime gone (E_UNAVAILABLE)');
  });

  it('offers to enable notifications only while permission is undecided', async () => {
    const harness = await renderReview(runtime([]));
    expect(screen.queryByRole('button', { name: 'Enable notifications' })).toBeNull();
    act(() => harness.store.getState().setNotificationState('default'));
    expect(screen.getByRole('button', { name: 'Enable notifications' })).toBeTruthy();
    act(() => harness.store.getState().setNotificationState('granted'));
    expect(screen.queryByRole('button', { name: 'Enable notifications' })).toBeNull();
  });
});

describe('ReviewPage: plan approvals', () => {
  it('shows plans and tool calls in one queue, oldest request first, and counts both', async () => {
    await renderReview(runtime([pendingApproval(2), pendingApproval(4)], false, [pendingPlan(3, { risk: 'high' }), pendingPlan(1)]));
    expect(screen.getAllByRole('article')).toHaveLength(1);
    const card = activePlan();
    expect(card.getAttribute('aria-label')).toBe('Plan approval: Fix the timezone bug 1');
    expect(within(card).getByRole('heading', { name: 'Run plan: Fix the timezone bug 1 (task)' })).toBeTruthy();
    expect(screen.getByText('4 decisions waiting: 2 plans, 2 tool calls')).toBeTruthy();
    const upNext = screen.getByRole('list', { name: 'Up next' });
    expect(within(upNext).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'read_file_2 on filesystem wants to runMedium risk',
      'Run plan: Fix the timezone bug 3 (task)High risk',
      'read_file_4 on filesystem wants to runMedium risk',
    ]);
  });

  it('counts plans alone when no tool call waits', async () => {
    await renderReview(runtime([], false, [pendingPlan(1)]));
    expect(screen.getByText('1 decision waiting')).toBeTruthy();
    expect(screen.queryByText('No decisions waiting')).toBeNull();
  });

  it('approves the active plan with plans.decide, disabling every button until the runtime answers', async () => {
    let answer: () => void = () => {};
    const transport = runtime([pendingApproval(2)], false, [pendingPlan(1)]).handle(
      'plans.decide',
      (args) =>
        new Promise((resolve) => {
          answer = () => resolve({ ok: true, value: { id: (args as { id: string }).id, outcome: 'approved' } });
        }),
    );
    await renderReview(transport);
    fireEvent.click(within(activePlan()).getByRole('button', { name: 'Approve and sign' }));
    expect(transport.callsTo('plans.decide')).toEqual([{ id: 'plan-1', decision: 'approve' }]);
    for (const name of ['Approve and sign', 'Deny']) expect((within(activePlan()).getByRole('button', { name }) as HTMLButtonElement).disabled).toBe(true);
    expect(activePlan().getAttribute('aria-busy')).toBe('true');
    fireEvent.click(within(activePlan()).getByRole('button', { name: 'Deny' }));
    expect(transport.callsTo('plans.decide')).toHaveLength(1);

    await act(async () => answer());
    await flush();
    expect(screen.queryByRole('article', { name: /^Plan approval: / })).toBeNull();
    expect(activeCard().getAttribute('aria-label')).toBe('Approval request: read_file_2 on filesystem');
    expect((within(activeCard()).getByRole('button', { name: 'Deny' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('denies a plan and shows a failed decision inline', async () => {
    const transport = runtime([], false, [pendingPlan(1)]).handle('plans.decide', () => ({ ok: false, error: { code: 'E_DB_FAILURE', message: 'database is locked' } }));
    await renderReview(transport);
    fireEvent.click(within(activePlan()).getByRole('button', { name: 'Deny' }));
    expect(transport.callsTo('plans.decide')).toEqual([{ id: 'plan-1', decision: 'deny' }]);
    await flush();
    expect(within(activePlan()).getByRole('alert').textContent).toBe('Could not send your decision: database is locked (E_DB_FAILURE)');
    expect((within(activePlan()).getByRole('button', { name: 'Approve and sign' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('follows plans.changed events and ignores invalid payloads', async () => {
    const transport = runtime([], false, [pendingPlan(1)]);
    await renderReview(transport);
    act(() => transport.emit('plans.changed', { pending: [pendingPlan(6), pendingPlan(5)] }));
    expect(activePlan().getAttribute('aria-label')).toBe('Plan approval: Fix the timezone bug 5');
    act(() => transport.emit('plans.changed', { pending: [{ ...pendingPlan(7), planHash: 'abc' }] }));
    expect(activePlan().getAttribute('aria-label')).toBe('Plan approval: Fix the timezone bug 5');
    act(() => transport.emit('plans.changed', { pending: [] }));
    expect(screen.getByText('No decisions waiting')).toBeTruthy();
  });

  it('counts plans towards the density cue', async () => {
    const tools = Array.from({ length: 4 }, (_, i) => pendingApproval(i + 1));
    await renderReview(runtime(tools, false, [pendingPlan(10, { risk: 'high' }), pendingPlan(11, { risk: 'critical' })]));
    expect(screen.getByRole('status').textContent).toContain('6 approvals at medium risk or higher are waiting (1 critical, 1 high, 4 medium)');
  });

  it('shows why the plan queue could not be loaded, next to the tool-call queue', async () => {
    const transport = new FakeTransport('connected')
      .handle('approvals.list', () => ({ ok: true, value: { pending: [pendingApproval(1)], paused: false } }))
      .handle('plans.list', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'no handler for plans.list' } }));
    await renderReview(transport);
    expect(screen.getByRole('alert').textContent).toBe('Could not load the plan approvals: no handler for plans.list (E_UNAVAILABLE)');
    expect(activeCard()).toBeTruthy();
  });
});
