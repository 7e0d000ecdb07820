import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CardAction } from '../../../../src-shared/schemas/review.js';
import { DecisionActions } from './DecisionActions.js';

afterEach(cleanup);

const ACTIONS: CardAction[] = [
  { choice: 'stop', label: 'Stop', consequence: 'Nothing happens', role: 'recommended', tone: 'recommended' },
  { choice: 'go', label: 'Go', consequence: 'Something happens', role: 'alternative', tone: 'danger' },
];

describe('DecisionActions', () => {
  it('renders the buttons in the given order, each described by its consequence and drawn in its tone, and reports the choice', () => {
    const onDecide = vi.fn();
    render(<DecisionActions actions={ACTIONS} busy={false} error={null} onDecide={onDecide} />);
    const group = screen.getByRole('group', { name: 'Decision' });
    expect(within(group).getAllByRole('button').map((b) => b.textContent)).toEqual(['Stop', 'Go']);
    expect(screen.getByRole('button', { name: 'Stop', description: 'Nothing happens' }).className).toContain('--recommended');
    expect(screen.getByRole('button', { name: 'Go', description: 'Something happens' }).className).toContain('--danger');
    fireEvent.click(screen.getByRole('button', { name: 'Go' }));
    expect(onDecide).toHaveBeenCalledWith('go');
    expect(screen.queryByText('Sending your decision…')).toBeNull();
  });

  it('waits while a decision is on its way, and shows why one failed', () => {
    const onDecide = vi.fn();
    const { rerender } = render(<DecisionActions actions={ACTIONS} busy error={null} onDecide={onDecide} />);
    fireEvent.click(screen.getByRole('button', { name: 'Go' }));
    expect(onDecide).not.toHaveBeenCalled();
    expect(screen.getByText('Sending your decision…')).toBeTruthy();
    rerender(<DecisionActions actions={ACTIONS} busy={false} error="the runtime stopped" onDecide={onDecide} />);
    expect(screen.getByRole('alert').textContent).toBe('Could not send your decision: the runtime stopped');
  });
});
