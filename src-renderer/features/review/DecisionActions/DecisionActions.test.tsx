import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DecisionActions, type DecisionAction } from './DecisionActions.js';

afterEach(cleanup);

const ACTIONS: DecisionAction<'go' | 'stop'>[] = [
  { decision: 'go', label: 'Go', consequence: 'Something happens', tone: 'recommended' },
  { decision: 'stop', label: 'Stop', consequence: 'Nothing happens', tone: 'secondary' },
];

describe('DecisionActions', () => {
  it('renders the buttons in the given order, each described by its consequence, and reports the choice', () => {
    const onDecide = vi.fn();
    render(<DecisionActions actions={ACTIONS} busy={false} error={null} onDecide={onDecide} />);
    const group = screen.getByRole('group', { name: 'Decision' });
    expect(within(group).getAllByRole('button').map((b) => b.textContent)).toEqual(['Go', 'Stop']);
    expect(screen.getByRole('button', { name: 'Stop', description: 'Nothing happens' }).className).toContain('--secondary');
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
