import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { DecisionCard } from '../../../../src-shared/schemas/review.js';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { flush, renderCockpit } from '../../../testing/render-cockpit.js';
import { heldDecisions, planCard, reviewDelta, toolCallCard, toolChangeCard } from '../../../testing/review-fixtures.js';
import { ReviewPage } from './ReviewPage.js';

afterEach(cleanup);

function runtime(cards: DecisionCard[], paused = false): FakeTransport {
  return new FakeTransport('connected').handle('review.list', () => ({ ok: true, value: { cards, paused } }));
}


async function renderReview(transport: FakeTransport) {
  const harness = renderCockpit(<ReviewPage />, { transport });
  await flush();
  return harness;
}

const activeCard = () => screen.getByRole('article', { name: /^Approval request: / });
const activePlan = () => screen.getByRole('article', { name: /^Plan approval: / });
const upNextItems = () => within(screen.getByRole('list', { name: 'Up next' })).getAllByRole('listitem').map((item) => item.textContent);
const disabled = (card: HTMLElement, name: string) => (within(card).getByRole('button', { name }) as HTMLButtonElement).disabled;

describe('ReviewPage', () => {
  it('shows a calm empty state when nothing waits', async () => {
    await renderReview(runtime([]));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Review');
    expect(screen.getByText('No decisions waiting')).toBeTruthy();
    expect(screen.queryByRole('article')).toBeNull();
    expect(screen.queryByRole('list', { name: 'Up next' })).toBeNull();
  });

  it('shows the oldest card as the one active card and the rest as up next, intent and risk only', async () => {
    await renderReview(runtime([toolCallCard(3, { riskLevel: 'high', details: { tool: 'delete_file' } }), toolCallCard(1), toolCallCard(2)]));
    const card = screen.getByRole('article', { name: 'Approval request: read_file_1 on filesystem' });
    expect(screen.getAllByRole('article')).toHaveLength(1);
    expect(within(card).getByRole('heading', { name: 'read_file_1 on filesystem wants to run' })).toBeTruthy();
    expect(within(card).getByText('Medium risk')).toBeTruthy();
    expect(card.textContent).toContain('Reading files outside the project asks first.');
    expect(within(card).getByRole('timer', { name: 'Time left' })).toBeTruthy();
    fireEvent.click(within(card).getByRole('button', { name: 'Details' }));
    expect(card.textContent).toContain('tools.read_file_*');
    expect(card.textContent).toContain('workstation');

    const upNext = screen.getByRole('list', { name: 'Up next' });
    expect(upNext.tagName).toBe('OL');
    expect(upNextItems()).toEqual(['read_file_2 on filesystem wants to runMedium risk', 'delete_file on filesystem wants to runHigh risk']);
    expect(within(upNext).queryByRole('button')).toBeNull();
  });

  it('decides the active card, disabling every button until the runtime answers', async () => {
    const transport = runtime([toolCallCard(1), toolCallCard(2)]);
    const answers = heldDecisions(transport);
    await renderReview(transport);
    fireEvent.click(within(activeCard()).getByRole('button', { name: 'Allow once' }));
    expect(transport.callsTo('review.decide')).toEqual([{ id: 'tool_call-1', choice: 'allow_once' }]);
    for (const name of ['Allow once', 'Always allow', 'Deny']) expect(disabled(activeCard(), name)).toBe(true);
    expect(activeCard().getAttribute('aria-busy')).toBe('true');

    await act(async () => answers[0]!());
    await flush();
    expect(activeCard().getAttribute('aria-label')).toBe('Approval request: read_file_2 on filesystem');
    expect(disabled(activeCard(), 'Deny')).toBe(false);
    fireEvent.click(within(activeCard()).getByRole('button', { name: 'Deny' }));
    expect(transport.callsTo('review.decide')).toEqual([
      { id: 'tool_call-1', choice: 'allow_once' },
      { id: 'tool_call-2', choice: 'deny' },
    ]);
  });

  it('sends always_allow from the Always allow button', async () => {
    const transport = runtime([toolCallCard(1)]).handle('review.decide', (args) => ({ ok: true, value: { ...(args as { id: string; choice: string }), kind: 'tool_call', outcome: 'approved' } }));
    await renderReview(transport);
    fireEvent.click(within(activeCard()).getByRole('button', { name: /^Always allow/ }));
    expect(transport.callsTo('review.decide')).toEqual([{ id: 'tool_call-1', choice: 'always_allow' }]);
    await flush();
    expect(screen.getByText('No decisions waiting')).toBeTruthy();
  });

  it('shows a failed decision inline with the runtime message and lets the person retry', async () => {
    const transport = runtime([toolCallCard(1)]).handle('review.decide', () => ({ ok: false, error: { code: 'E_DB_FAILURE', message: 'database is locked' } }));
    await renderReview(transport);
    fireEvent.click(within(activeCard()).getByRole('button', { name: 'Deny' }));
    await flush();
    expect(within(activeCard()).getByRole('alert').textContent).toBe('Could not send your decision: database is locked (E_DB_FAILURE)');
    expect(disabled(activeCard(), 'Deny')).toBe(false);
    fireEvent.click(within(activeCard()).getByRole('button', { name: 'Deny' }));
    expect(transport.callsTo('review.decide')).toHaveLength(2);
  });

  it('shows a failed decision on a card that is not the active one (sent from the Servers page) above the queue', async () => {
    const transport = runtime([toolCallCard(1), toolChangeCard(2)]).handle('review.decide', () => ({ ok: false, error: { code: 'E_INVALID_ARGS', message: 'no pending decision' } }));
    const harness = await renderReview(transport);
    act(() => harness.cockpit.actions.decide('tool_change-2', 'approve'));
    await flush();
    const alerts = screen.getAllByRole('alert');
    expect(alerts.map((a) => a.textContent)).toEqual(['Could not send your decision: no pending decision (E_INVALID_ARGS)']);
    expect(within(activeCard()).queryByRole('alert')).toBeNull();
  });

  it('follows review.changed events and ignores invalid payloads', async () => {
    const transport = runtime([]);
    await renderReview(transport);
    act(() => transport.emit('review.changed', reviewDelta(1, { added: [toolCallCard(4)] })));
    expect(activeCard().getAttribute('aria-label')).toBe('Approval request: read_file_4 on filesystem');
    act(() => transport.emit('review.changed', reviewDelta(2, { added: [{ ...planCard(7), details: { ...planCard(7).details, planHash: 'abc' } }] })));
    expect(activeCard().getAttribute('aria-label')).toBe('Approval request: read_file_4 on filesystem');
    act(() => transport.emit('review.changed', reviewDelta(2, { removed: ['tool_call-4'] })));
    expect(screen.getByText('No decisions waiting')).toBeTruthy();
  });

  it('warns when more than five medium+ decisions wait, without disabling anything', async () => {
    const five = Array.from({ length: 5 }, (_, i) => toolCallCard(i + 1, { riskLevel: i < 2 ? 'high' : 'medium' }));
    const transport = runtime([...five, toolCallCard(50, { riskLevel: 'low' })]);
    await renderReview(transport);
    expect(screen.queryByRole('status')).toBeNull();
    act(() => transport.emit('review.changed', reviewDelta(1, { added: [toolCallCard(6, { riskLevel: 'irreversible' })], removed: ['tool_call-50'] })));
    const cue = screen.getByRole('status');
    expect(cue.textContent).toContain('6 decisions at medium risk or higher are waiting');
    expect(cue.textContent).toContain('(1 irreversible, 2 high, 3 medium)');
    expect(within(activeCard()).getAllByRole('button').every((button) => !(button as HTMLButtonElement).disabled)).toBe(true);
  });

  it('says when asking is paused', async () => {
    await renderReview(runtime([], true));
    expect(screen.getByRole('status').textContent).toBe('Approvals are paused — new requests are declined');
  });

  it('shows why the queue could not be loaded', async () => {
    const transport = new FakeTransport('connected').handle('review.list', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'runtime gone' } }));
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

describe('ReviewPage: every kind in one queue', () => {
  it('shows plans and tool calls in one queue, oldest request first, and counts both', async () => {
    await renderReview(runtime([toolCallCard(2), toolCallCard(4), planCard(3, { riskLevel: 'high' }), planCard(1)]));
    expect(screen.getAllByRole('article')).toHaveLength(1);
    const card = activePlan();
    expect(card.getAttribute('aria-label')).toBe('Plan approval: Fix the timezone bug 1');
    expect(within(card).getByRole('heading', { name: 'Run plan: Fix the timezone bug 1 (task)' })).toBeTruthy();
    expect(screen.getByText('4 decisions waiting: 2 plans, 2 tool calls')).toBeTruthy();
    expect(upNextItems()).toEqual([
      'read_file_2 on filesystem wants to runMedium risk',
      'Run plan: Fix the timezone bug 3 (task)High risk',
      'read_file_4 on filesystem wants to runMedium risk',
    ]);
  });

  it('counts one kind alone without naming it', async () => {
    await renderReview(runtime([planCard(1)]));
    expect(screen.getByText('1 decision waiting')).toBeTruthy();
    expect(screen.queryByText('No decisions waiting')).toBeNull();
  });

  it('approves the active plan with review.decide, disabling every button until the runtime answers', async () => {
    const transport = runtime([toolCallCard(2), planCard(1)]);
    const answers = heldDecisions(transport);
    await renderReview(transport);
    fireEvent.click(within(activePlan()).getByRole('button', { name: 'Approve and sign' }));
    expect(transport.callsTo('review.decide')).toEqual([{ id: 'plan-1', choice: 'approve' }]);
    for (const name of ['Approve and sign', 'Deny']) expect(disabled(activePlan(), name)).toBe(true);
    expect(activePlan().getAttribute('aria-busy')).toBe('true');
    fireEvent.click(within(activePlan()).getByRole('button', { name: 'Deny' }));
    expect(transport.callsTo('review.decide')).toHaveLength(1);

    await act(async () => answers[0]!());
    await flush();
    expect(screen.queryByRole('article', { name: /^Plan approval: / })).toBeNull();
    expect(activeCard().getAttribute('aria-label')).toBe('Approval request: read_file_2 on filesystem');
    expect(disabled(activeCard(), 'Deny')).toBe(false);
  });

  it('denies a plan and shows a failed decision inline', async () => {
    const transport = runtime([planCard(1)]).handle('review.decide', () => ({ ok: false, error: { code: 'E_DB_FAILURE', message: 'database is locked' } }));
    await renderReview(transport);
    fireEvent.click(within(activePlan()).getByRole('button', { name: 'Deny' }));
    expect(transport.callsTo('review.decide')).toEqual([{ id: 'plan-1', choice: 'deny' }]);
    await flush();
    expect(within(activePlan()).getByRole('alert').textContent).toBe('Could not send your decision: database is locked (E_DB_FAILURE)');
    expect(disabled(activePlan(), 'Approve and sign')).toBe(false);
  });

  it('shows a changed tool definition as a card that waits without a countdown, and keeps it blocked on request', async () => {
    const transport = runtime([toolChangeCard(1, { details: { tool: 'fetch', server: 'web' } }), toolCallCard(2)]);
    const answers = heldDecisions(transport);
    await renderReview(transport);
    const card = screen.getByRole('article', { name: 'Tool change: fetch on web' });
    expect(within(card).queryByRole('timer')).toBeNull();
    expect(screen.getByText('2 decisions waiting: 1 tool call, 1 tool change')).toBeTruthy();
    fireEvent.click(within(card).getByRole('button', { name: 'Keep blocked' }));
    expect(transport.callsTo('review.decide')).toEqual([{ id: 'tool_change-1', choice: 'keep_blocked' }]);
    await act(async () => answers[0]!());
    await flush();
    expect(activeCard().getAttribute('aria-label')).toBe('Approval request: read_file_2 on filesystem');
  });

  it('counts every kind towards the density cue', async () => {
    const tools = Array.from({ length: 3 }, (_, i) => toolCallCard(i + 1));
    await renderReview(runtime([...tools, planCard(10, { riskLevel: 'high' }), planCard(11, { riskLevel: 'irreversible' }), toolChangeCard(12), toolCallCard(13, { riskLevel: 'low' })]));
    expect(screen.getByRole('status').textContent).toContain('6 decisions at medium risk or higher are waiting (1 irreversible, 2 high, 3 medium)');
  });
});
