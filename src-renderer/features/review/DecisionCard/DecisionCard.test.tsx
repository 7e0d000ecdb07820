import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DecisionCard as Card } from '../../../../src-shared/schemas/review.js';
import { planCard, planHash, toolCallCard, toolChangeCard } from '../../../testing/review-fixtures.js';
import { DecisionCard } from './DecisionCard.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const APPROVE_CONSEQUENCE = 'Signs this exact plan with your owner key; it runs once in a sandbox and only its checks decide success';

const buttons = () => within(screen.getByRole('group', { name: 'Decision' })).getAllByRole('button');
const fact = (within_: HTMLElement, term: string) => within(within_).getByText(term, { selector: 'dt' }).nextElementSibling as HTMLElement;
const details = () => screen.getByRole('button', { name: 'Details' });
const show = (card: Card, props: Partial<{ busy: boolean; error: string | null; onDecide(choice: string): void }> = {}) =>
  render(<DecisionCard card={card} busy={props.busy ?? false} error={props.error ?? null} onDecide={props.onDecide ?? (() => {})} />);

describe('DecisionCard: the card contract, whatever the kind', () => {
  it('shows the intent, the risk badge, the rationale and the reasons for the risk, and what it affects', () => {
    show(planCard(1, { riskReasons: ['runs commands', 'uses the network'], affectedItems: { count: 1200, summary: 'files in the report folder' } }));
    const card = screen.getByRole('article', { name: 'Plan approval: Fix the timezone bug 1' });
    expect(within(card).getByRole('heading', { level: 2, name: 'Run plan: Fix the timezone bug 1 (task)' })).toBeTruthy();
    expect(within(card).getByText('Medium risk').className).toContain('risk-badge--medium');
    expect(fact(card, 'Why').textContent).toBe('Shifts across timezones overlap. Parse dates as UTC.');
    expect(fact(card, 'Risk').textContent).toBe('runs commands; uses the network');
    expect(fact(card, 'Affects').textContent).toBe('1,200: files in the report folder');
  });

  it('leaves out an empty rationale, no risk reasons and no affected items', () => {
    show(toolCallCard(1, { rationale: '' }));
    const card = screen.getByRole('article');
    expect(within(card).queryByText('Why', { selector: 'dt' })).toBeNull();
    expect(within(card).queryByText('Risk', { selector: 'dt' })).toBeNull();
    expect(within(card).queryByText('Affects', { selector: 'dt' })).toBeNull();
  });

  it("labels every step of the risk ladder, the top one as Irreversible (§0.5.2)", () => {
    for (const [risk, label] of [['low', 'Low risk'], ['high', 'High risk'], ['irreversible', 'Irreversible']] as const) {
      show(toolCallCard(1, { riskLevel: risk }));
      expect(within(screen.getByRole('article')).getByText(label).className).toContain(`risk-badge--${risk}`);
      expect(screen.getByRole('article').className).toContain(`approval-card--${risk}`);
      cleanup();
    }
  });

  it("draws the runtime's buttons in its order, with their consequences and tones, never re-ordering them", () => {
    const actions = [...toolCallCard(1).actions].reverse();
    show(toolCallCard(1, { actions }));
    expect(buttons().map((b) => b.textContent)).toEqual(['Deny', 'Always allow', 'Allow once']);
    expect(screen.getByRole('button', { name: 'Deny', description: 'The agent receives an error (-32004)' }).className).toContain('--secondary');
    expect(screen.getByRole('button', { name: 'Allow once' }).className).toContain('--recommended');
  });

  it('reports the chosen choice', () => {
    const onDecide = vi.fn();
    show(toolCallCard(1), { onDecide });
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    fireEvent.click(screen.getByRole('button', { name: 'Allow once' }));
    fireEvent.click(screen.getByRole('button', { name: 'Always allow' }));
    expect(onDecide.mock.calls).toEqual([['deny'], ['allow_once'], ['always_allow']]);
  });

  it('disables its buttons, marks itself busy and says so while a decision is on its way', () => {
    const onDecide = vi.fn();
    show(planCard(1), { busy: true, onDecide });
    expect(buttons().every((b) => (b as HTMLButtonElement).disabled)).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Approve and sign' }));
    expect(onDecide).not.toHaveBeenCalled();
    expect(screen.getByRole('article').getAttribute('aria-busy')).toBe('true');
    expect(screen.getByText('Sending your decision…')).toBeTruthy();
  });

  it('shows an error inline', () => {
    show(toolCallCard(1), { error: 'gone (E_INVALID_ARGS)' });
    expect(screen.getByRole('alert').textContent).toBe('Could not send your decision: gone (E_INVALID_ARGS)');
  });

  it('keeps details collapsed for low and medium risk (§0.5.3)', () => {
    for (const riskLevel of ['low', 'medium'] as const) {
      show(planCard(1, { riskLevel }));
      expect(details().getAttribute('aria-expanded')).toBe('false');
      expect(screen.queryByLabelText('Plan briefing')).toBeNull();
      cleanup();
    }
  });

  it('opens details from the start for high and irreversible risk (§0.5.3)', () => {
    const cases = [
      [toolCallCard(1, { riskLevel: 'irreversible' }), 'Arguments'],
      [planCard(1, { riskLevel: 'high' }), 'Plan briefing'],
      [toolChangeCard(1), 'Pending definition hash'],
    ] as const;
    for (const [card, payload] of cases) {
      show(card);
      expect(details().getAttribute('aria-expanded')).toBe('true');
      expect(screen.getByLabelText(payload)).toBeTruthy();
      cleanup();
    }
  });

  it('counts down only for a request that expires', () => {
    vi.useFakeTimers({ now: Date.parse('2026-01-01T12:00:00.000Z') });
    show(toolCallCard(1, { expiresAt: '2026-01-01T12:00:02.000Z' }));
    const timer = screen.getByRole('timer', { name: 'Time left' });
    expect(timer.textContent).toBe('Expires in 0:02');
    act(() => vi.advanceTimersByTime(2000));
    expect(timer.textContent).toBe('Expired — the agent gets a timeout');
    expect(timer.className).toContain('countdown--expired');
    cleanup();

    show(toolChangeCard(1));
    expect(screen.queryByRole('timer')).toBeNull();
  });
});

describe('DecisionCard: a tool call', () => {
  it('is named by tool and server and puts the recommended Allow once first for medium risk, Always allow in the middle', () => {
    show(toolCallCard(1));
    expect(screen.getByRole('article', { name: 'Approval request: read_file_1 on filesystem' })).toBeTruthy();
    expect(buttons().map((b) => b.textContent)).toEqual(['Allow once', 'Always allow', 'Deny']);
    expect(screen.getByRole('button', { name: 'Allow once', description: 'Runs this call once; signed with your key' }).className).toContain('--recommended');
    expect(
      screen.getByRole('button', {
        name: 'Always allow',
        description: 'Runs this call now and every identical call (same tool, same arguments, this server) without asking, until you revoke it on the Policies page',
      }).className,
    ).toContain('--secondary');
    expect(screen.getByRole('button', { name: 'Deny', description: 'The agent receives an error (-32004)' }).className).toContain('--secondary');
  });

  it('recommends Deny first for high risk, keeps Always allow in the middle and Allow once last, both in the danger colour', () => {
    show(toolCallCard(1, { riskLevel: 'high' }));
    expect(buttons().map((b) => b.textContent)).toEqual(['Deny', 'Always allow', 'Allow once']);
    expect(screen.getByRole('button', { name: 'Deny' }).className).toContain('--recommended');
    expect(screen.getByRole('button', { name: 'Always allow' }).className).toContain('--danger');
    expect(screen.getByRole('button', { name: 'Allow once' }).className).toContain('--danger');
  });

  it('expands the server, tool, rule, policy and the redacted arguments on demand', () => {
    show(toolCallCard(1));
    expect(screen.queryByLabelText('Arguments')).toBeNull();
    fireEvent.click(details());
    expect(details().getAttribute('aria-expanded')).toBe('true');
    const card = screen.getByRole('article');
    expect(fact(card, 'Server').textContent).toBe('filesystem');
    expect(fact(card, 'Tool').textContent).toBe('read_file_1');
    expect(fact(card, 'Rule').textContent).toBe('tools.read_file_* in policy workstation');
    const args = screen.getByLabelText('Arguments');
    expect(args.tagName).toBe('PRE');
    expect(JSON.parse(args.textContent!)).toEqual({ path: '/home/ada/notes/1.md', token: '[REDACTED:api_key]' });
    fireEvent.click(details());
    expect(details().getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByLabelText('Arguments')).toBeNull();
  });
});

describe('DecisionCard: a plan', () => {
  it('puts the recommended Approve and sign first and Deny last for medium risk, each with its consequence', () => {
    show(planCard(1));
    expect(buttons().map((b) => b.textContent)).toEqual(['Approve and sign', 'Deny']);
    expect(screen.getByRole('button', { name: 'Approve and sign', description: APPROVE_CONSEQUENCE }).className).toContain('--recommended');
    expect(screen.getByRole('button', { name: 'Deny', description: 'Nothing runs' }).className).toContain('--secondary');
  });

  it('recommends Deny first for high risk and draws Approve and sign last in the danger colour', () => {
    show(planCard(1, { riskLevel: 'high' }));
    expect(buttons().map((b) => b.textContent)).toEqual(['Deny', 'Approve and sign']);
    expect(screen.getByRole('button', { name: 'Deny', description: 'Nothing runs' }).className).toContain('--recommended');
    expect(screen.getByRole('button', { name: 'Approve and sign', description: APPROVE_CONSEQUENCE }).className).toContain('--danger');
  });

  it('details the short hash, source, budget, checks, skills, gates, full hash, item and briefing', () => {
    vi.useFakeTimers({ now: Date.parse(planCard(1).requestedAt) });
    const plan = planCard(1, {
      details: {
        verify: [
          { name: 'unit tests', run: 'npm test', network: false },
          { name: 'fetch fixtures', run: 'curl -fsS https://example.org/tz.json', network: true },
        ],
      },
    });
    show(plan);
    expect(screen.getByRole('timer', { name: 'Time left' }).textContent).toBe('Expires in 10:00');
    fireEvent.click(details());
    const card = screen.getByRole('article');
    const short = within(card).getByLabelText('Plan hash starts 1a2b3c4d');
    expect(short.textContent).toBe('1a2b3c4d');
    expect(short.closest('strong')!.getAttribute('title')).toBe(planHash(1));
    expect(fact(card, 'From').textContent).toBe('/home/ada/work/plan-1.md');
    expect(fact(card, 'Budget').textContent).toBe('at most $2.00, 200,000 tokens, 30 min and 5 attempts');
    expect(within(card).getByRole('list', { name: 'Checks' })).toBeTruthy();
    const checks = within(within(card).getByRole('list', { name: 'Checks' })).getAllByRole('listitem');
    expect(checks.map((item) => item.textContent)).toEqual(['unit tests: npm test', 'fetch fixtures: curl -fsS https://example.org/tz.json needs network']);
    expect(within(checks[0]!).queryByText('needs network')).toBeNull();
    expect(fact(card, 'Skills').textContent).toBe('coding, testing');
    expect(fact(card, 'Gates').textContent).toBe('2 gates');
    expect(screen.getByLabelText('Full plan hash').textContent).toBe(planHash(1));
    expect(fact(card, 'Item').textContent).toBe('task-fix-tz-bug-1 (task)');
    const body = screen.getByLabelText('Plan briefing');
    expect(body.tagName).toBe('PRE');
    expect(body.textContent).toBe('# Fix the timezone bug\n\nParse dates as UTC.');
  });

  it('says when the plan has no checks, skills, gates or briefing, and when it expired', () => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T00:00:00.000Z') });
    show(planCard(1, { riskLevel: 'high', details: { verify: [], skills: [], gates: 0, body: '' } }));
    const card = screen.getByRole('article');
    expect(fact(card, 'Checks').textContent).toBe('None — nothing would decide success');
    expect(fact(card, 'Skills').textContent).toBe('None');
    expect(fact(card, 'Gates').textContent).toBe('No gates');
    expect(screen.getByLabelText('Plan briefing').textContent).toBe('(no briefing)');
    expect(screen.getByRole('timer', { name: 'Time left' }).textContent).toBe('Expired — silas run gets a timeout and nothing runs');
  });

  it('shows a briefing, title and intent with markup as text, never as HTML', () => {
    const body = '<script>window.pwned = true</script><img src=x onerror="window.pwned = true"><b>bold</b>';
    const { container } = show(planCard(1, { riskLevel: 'high', intent: 'Run plan: <i>sneaky</i> (task)', details: { body, title: '<i>sneaky</i>' } }));
    expect(screen.getByLabelText('Plan briefing').textContent).toBe(body);
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Run plan: <i>sneaky</i> (task)');
    expect(screen.getByRole('article').getAttribute('aria-label')).toBe('Plan approval: <i>sneaky</i>');
    expect(container.querySelector('script, img, b, i')).toBeNull();
    expect((window as unknown as { pwned?: boolean }).pwned).toBeUndefined();
  });
});

describe('DecisionCard: a changed tool definition', () => {
  it('is named by tool and server, waits without a countdown, and shows both hashes from the start (high risk)', () => {
    const onDecide = vi.fn();
    show(toolChangeCard(1, { details: { tool: 'fetch', server: 'web' } }), { onDecide });
    const card = screen.getByRole('article', { name: 'Tool change: fetch on web' });
    expect(within(card).getByText('High risk')).toBeTruthy();
    expect(buttons().map((b) => b.textContent)).toEqual(['Keep blocked', 'Accept the new definition']);
    expect(screen.getByRole('button', { name: 'Accept the new definition', description: 'The agent can see and call the changed tool again' }).className).toContain('--danger');
    expect(fact(card, 'Server').textContent).toBe('web');
    expect(fact(card, 'Tool').textContent).toBe('fetch');
    expect(screen.getByLabelText('Approved definition hash').textContent).toBe(`sha256:${'1'.repeat(64)}`);
    expect(screen.getByLabelText('Pending definition hash').textContent).toBe(`sha256:${'2'.repeat(64)}`);
    fireEvent.click(screen.getByRole('button', { name: 'Keep blocked' }));
    expect(onDecide).toHaveBeenCalledWith('keep_blocked');
  });
});
