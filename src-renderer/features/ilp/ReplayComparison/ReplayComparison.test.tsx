import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compositionView, hop, hopsOf } from '../../../testing/ilp-fixtures.js';
import { ReplayComparison } from './ReplayComparison.js';

afterEach(cleanup);

describe('ReplayComparison', () => {
  it('puts the replay beside the original: status, constitutional status, principle and cost, changed rows marked', () => {
    const onOpen = vi.fn();
    const refused = compositionView('c-9', {
      status: 429,
      constitutional_status: 'VIOLATION',
      cost_usd: 0.0001,
      replay_of: 'c-1',
      hop_list: [hopsOf()[0]!, hop('h-f', { status: 429, principle: 'recursion_budget', severity: 'fatal' })],
    });
    render(<ReplayComparison original={compositionView('c-1')} replay={refused} onOpen={onOpen} />);
    expect(screen.getByRole('status', { name: 'Replay outcome' }).textContent).toBe('Original 200 OK · Replay 429 Budget Exceeded');
    const rows = within(screen.getByRole('table', { name: 'The original beside its replay' })).getAllByRole('row').slice(1);
    expect(rows.map((row) => [...row.children].map((cell) => cell.textContent))).toEqual([
      ['Status', '200 OK', '429 Budget Exceeded'],
      ['Constitutional status', 'PASSED', 'VIOLATION'],
      ['Principle', 'none', 'recursion_budget · fatal'],
      ['Cost', '$0.0100', '$0.0001'],
    ]);
    expect(rows.every((row) => row.className === 'ilp-comparison__changed')).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Inspect the replay' }));
    expect(onOpen).toHaveBeenCalledWith('c-9');
  });
});
