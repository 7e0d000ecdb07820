import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pendingPlan, planHash } from '../../../test/plan-fixtures.js';
import { PlanApprovalCard } from './PlanApprovalCard.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const APPROVE_CONSEQUENCE = 'Signs this exact plan with your owner key; it runs once in a sandbox and only its checks decide success';

const buttons = () => within(screen.getByRole('group', { name: 'Decision' })).getAllByRole('button');
const fact = (card: HTMLElement, term: string) => within(card).getByText(term, { selector: 'dt' }).nextElementSibling as HTMLElement;

describe('PlanApprovalCard', () => {
  it('shows the intent with the type, risk and rationale, the short hash, source, budget, checks, skills, gates and time left', () => {
    vi.useFakeTimers({ now: Date.parse(pendingPlan(1).requestedAt) });
    const plan = pendingPlan(1, {
      verify: [
        { name: 'unit tests', run: 'npm test', network: false },
        { name: 'fetch fixtures', run: 'curl -fsS https://example.org/tz.json', network: true },
      ],
    });
    render(<PlanApprovalCard card={plan} busy={false} error={null} onDecide={() => {}} />);
    const card = screen.getByRole('article', { name: 'Plan approval: Fix the timezone bug 1' });
    expect(within(card).getByRole('heading', { level: 2, name: 'Run plan: Fix the timezone bug 1 (task)' })).toBeTruthy();
    expect(within(card).getByText('Medium risk')).toBeTruthy();
    expect(fact(card, 'Why').textContent).toBe('Shifts across timezones overlap. Parse dates as UTC.');
    expect(fact(card, 'Risk').textContent).toBe('an agent runs commands in a sandbox with the network denied');

    const short = within(card).getByLabelText('Plan hash starts 1a2b3c4d');
    expect(short.textContent).toBe('1a2b3c4d');
    expect(short.closest('strong')!.getAttribute('title')).toBe(planHash(1));

    expect(fact(card, 'From').textContent).toBe('/home/ada/work/plan-1.md');
    expect(fact(card, 'Budget').textContent).toBe('at most $2.00, 200,000 tokens, 30 min and 5 attempts');
    const checks = within(card).getAllByRole('listitem');
    expect(within(card).getByRole('list', { name: 'Checks' })).toBeTruthy();
    expect(checks.map((item) => item.textContent)).toEqual(['unit tests: npm test', 'fetch fixtures: curl -fsS https://example.org/tz.json needs network']);
    expect(within(checks[0]!).queryByText('needs network')).toBeNull();
    expect(fact(card, 'Skills').textContent).toBe('coding, testing');
    expect(fact(card, 'Gates').textContent).toBe('2 gates');
    expect(within(card).getByRole('timer', { name: 'Time left' }).textContent).toBe('Expires in 10:00');
  });

  it('says when the plan has no checks, skills or gates, and when it expired', () => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T00:00:00.000Z') });
    render(<PlanApprovalCard card={pendingPlan(1, { verify: [], skills: [], gates: 0 })} busy={false} error={null} onDecide={() => {}} />);
    const card = screen.getByRole('article');
    expect(fact(card, 'Checks').textContent).toBe('None — nothing would decide success');
    expect(fact(card, 'Skills').textContent).toBe('None');
    expect(fact(card, 'Gates').textContent).toBe('No gates');
    expect(screen.getByRole('timer', { name: 'Time left' }).textContent).toBe('Expired — silas run gets a timeout and nothing runs');
  });

  it('puts the recommended Approve and sign first and Deny last for medium risk, each with its consequence', () => {
    render(<PlanApprovalCard card={pendingPlan(1)} busy={false} error={null} onDecide={() => {}} />);
    expect(buttons().map((b) => b.textContent)).toEqual(['Approve and sign', 'Deny']);
    expect(screen.getByRole('button', { name: 'Approve and sign', description: APPROVE_CONSEQUENCE }).className).toContain('--recommended');
    expect(screen.getByRole('button', { name: 'Deny', description: 'Nothing runs' }).className).toContain('--secondary');
  });

  it('recommends Deny first for high risk and draws Approve and sign last in the danger colour', () => {
    render(<PlanApprovalCard card={pendingPlan(1, { risk: 'high' })} busy={false} error={null} onDecide={() => {}} />);
    expect(buttons().map((b) => b.textContent)).toEqual(['Deny', 'Approve and sign']);
    expect(screen.getByRole('button', { name: 'Deny', description: 'Nothing runs' }).className).toContain('--recommended');
    expect(screen.getByRole('button', { name: 'Approve and sign', description: APPROVE_CONSEQUENCE }).className).toContain('--danger');
    expect(screen.getByText('High risk')).toBeTruthy();
  });

  it('reports the chosen decision', () => {
    const onDecide = vi.fn();
    render(<PlanApprovalCard card={pendingPlan(1)} busy={false} error={null} onDecide={onDecide} />);
    fireEvent.click(screen.getByRole('button', { name: 'Approve and sign' }));
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    expect(onDecide.mock.calls).toEqual([['approve'], ['deny']]);
  });

  it('disables its buttons and says so while a decision is on its way', () => {
    const onDecide = vi.fn();
    render(<PlanApprovalCard card={pendingPlan(1)} busy error={null} onDecide={onDecide} />);
    expect(buttons().every((b) => (b as HTMLButtonElement).disabled)).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Approve and sign' }));
    expect(onDecide).not.toHaveBeenCalled();
    expect(screen.getByRole('article').getAttribute('aria-busy')).toBe('true');
    expect(screen.getByText('Sending your decision…')).toBeTruthy();
  });

  it('shows an error inline', () => {
    render(<PlanApprovalCard card={pendingPlan(1)} busy={false} error="gone (E_INVALID_ARGS)" onDecide={() => {}} />);
    expect(screen.getByRole('alert').textContent).toBe('Could not send your decision: gone (E_INVALID_ARGS)');
  });

  it('keeps details collapsed for medium risk and expands the full hash and the briefing on demand', () => {
    render(<PlanApprovalCard card={pendingPlan(1)} busy={false} error={null} onDecide={() => {}} />);
    const details = screen.getByRole('button', { name: 'Details' });
    expect(details.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByLabelText('Plan briefing')).toBeNull();
    fireEvent.click(details);
    expect(details.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByLabelText('Full plan hash').textContent).toBe(planHash(1));
    expect(screen.getByText('task-fix-tz-bug-1')).toBeTruthy();
    const body = screen.getByLabelText('Plan briefing');
    expect(body.tagName).toBe('PRE');
    expect(body.textContent).toBe('# Fix the timezone bug\n\nParse dates as UTC.');
    fireEvent.click(details);
    expect(screen.queryByLabelText('Plan briefing')).toBeNull();
  });

  it('opens details from the start for high and critical risk (§0.5.3)', () => {
    render(<PlanApprovalCard card={pendingPlan(1, { risk: 'critical' })} busy={false} error={null} onDecide={() => {}} />);
    expect(screen.getByRole('button', { name: 'Details' }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByLabelText('Plan briefing')).toBeTruthy();
  });

  it('shows a briefing with markup as text, never as HTML', () => {
    const body = '<script>window.pwned = true</script><img src=x onerror="window.pwned = true"><b>bold</b>';
    const { container } = render(<PlanApprovalCard card={pendingPlan(1, { risk: 'high', body, title: '<i>sneaky</i>' })} busy={false} error={null} onDecide={() => {}} />);
    expect(screen.getByLabelText('Plan briefing').textContent).toBe(body);
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Run plan: <i>sneaky</i> (task)');
    expect(container.querySelector('script, img, b, i')).toBeNull();
    expect((window as unknown as { pwned?: boolean }).pwned).toBeUndefined();
  });

  it('counts down while it waits', () => {
    vi.useFakeTimers({ now: Date.parse('2026-01-01T12:00:00.000Z') });
    render(<PlanApprovalCard card={pendingPlan(1, { expiresAt: '2026-01-01T12:00:02.000Z' })} busy={false} error={null} onDecide={() => {}} />);
    const timer = screen.getByRole('timer', { name: 'Time left' });
    expect(timer.textContent).toBe('Expires in 0:02');
    act(() => vi.advanceTimersByTime(2000));
    expect(timer.textContent).toBe('Expired — silas run gets a timeout and nothing runs');
    expect(timer.className).toContain('countdown--expired');
  });
});
