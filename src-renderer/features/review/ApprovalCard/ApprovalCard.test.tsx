import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pendingApproval } from '../../../test/approval-fixtures.js';
import { ApprovalCard } from './ApprovalCard.js';

afterEach(cleanup);

const buttons = () => within(screen.getByRole('group', { name: 'Decision' })).getAllByRole('button');

describe('ApprovalCard', () => {
  it('puts the recommended Allow once first for medium risk, Always allow in the middle, each button with its consequence', () => {
    render(<ApprovalCard card={pendingApproval(1)} busy={false} error={null} onDecide={() => {}} />);
    expect(buttons().map((b) => b.textContent)).toEqual(['Allow once', 'Always allow', 'Deny']);
    expect(screen.getByRole('button', { name: 'Allow once' }).className).toContain('--recommended');
    expect(screen.getByRole('button', { name: 'Always allow' }).className).toContain('--secondary');
    expect(screen.getByRole('button', { name: 'Deny' }).className).toContain('--secondary');
    expect(
      screen.getByRole('button', {
        name: /^Always allow/,
        description: 'Runs this call now and every identical call (same tool, same arguments, this server) without asking, until you revoke it on the Policies page',
      }),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Allow once', description: 'Runs this call once; signed with your key' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Deny', description: 'The agent receives an error (-32004)' })).toBeTruthy();
  });

  it('recommends Deny first for high risk, keeps Always allow in the middle and Allow once last', () => {
    render(<ApprovalCard card={pendingApproval(1, { risk: 'high' })} busy={false} error={null} onDecide={() => {}} />);
    expect(buttons().map((b) => b.textContent)).toEqual(['Deny', 'Always allow', 'Allow once']);
    expect(screen.getByRole('button', { name: 'Deny' }).className).toContain('--recommended');
    expect(screen.getByRole('button', { name: 'Always allow' }).className).toContain('--danger');
    expect(screen.getByRole('button', { name: 'Allow once' }).className).toContain('--danger');
    expect(screen.getByText('High risk')).toBeTruthy();
  });

  it('reports the chosen decision', () => {
    const onDecide = vi.fn();
    render(<ApprovalCard card={pendingApproval(1)} busy={false} error={null} onDecide={onDecide} />);
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    fireEvent.click(screen.getByRole('button', { name: 'Allow once' }));
    fireEvent.click(screen.getByRole('button', { name: 'Always allow' }));
    expect(onDecide.mock.calls).toEqual([['deny'], ['allow_once'], ['always_allow']]);
  });

  it('keeps details collapsed for medium risk and expands the redacted arguments on demand', () => {
    render(<ApprovalCard card={pendingApproval(1)} busy={false} error={null} onDecide={() => {}} />);
    const details = screen.getByRole('button', { name: 'Details' });
    expect(details.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByLabelText('Arguments')).toBeNull();
    fireEvent.click(details);
    expect(details.getAttribute('aria-expanded')).toBe('true');
    const args = screen.getByLabelText('Arguments');
    expect(args.tagName).toBe('PRE');
    expect(JSON.parse(args.textContent!)).toEqual({ path: '/home/ada/notes/1.md', token: '[REDACTED:api_key]' });
    fireEvent.click(details);
    expect(details.getAttribute('aria-expanded')).toBe('false');
  });

  it('opens details from the start for high and critical risk (§0.5.3)', () => {
    render(<ApprovalCard card={pendingApproval(1, { risk: 'critical' })} busy={false} error={null} onDecide={() => {}} />);
    expect(screen.getByRole('button', { name: 'Details' }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByLabelText('Arguments')).toBeTruthy();
  });

  it('disables its buttons and says so while a decision is on its way', () => {
    render(<ApprovalCard card={pendingApproval(1)} busy error={null} onDecide={() => {}} />);
    expect(buttons().every((b) => (b as HTMLButtonElement).disabled)).toBe(true);
    expect(screen.getByText('Sending your decision…')).toBeTruthy();
  });

  it('shows an error inline', () => {
    render(<ApprovalCard card={pendingApproval(1)} busy={false} error="gone (E_INVALID_ARGS)" onDecide={() => {}} />);
    expect(screen.getByRole('alert').textContent).toBe('Could not send your decision: gone (E_INVALID_ARGS)');
  });
});
