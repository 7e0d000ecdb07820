import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ValueUsage } from './ValueUsage.js';

afterEach(cleanup);

describe('ValueUsage', () => {
  it('tabulates each value with its count and a bar of its share, most used first', () => {
    render(<ValueUsage usage={{ privacy: 1, transparency: 3 }} />);
    const table = screen.getByRole('table', { name: 'Value usage' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Value', 'Times applied', 'Share']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getByRole('rowheader').textContent)).toEqual(['transparency', 'privacy']);
    expect(rows.map((row) => within(row).getAllByRole('cell')[0]!.textContent)).toEqual(['3', '1']);
    expect(within(rows[0]!).getByRole('meter', { name: 'transparency: 75.0%' }).getAttribute('value')).toBe('0.75');
  });

  it('says when no value was applied', () => {
    render(<ValueUsage usage={{}} />);
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getByText('No value was applied by these decisions.')).toBeTruthy();
  });
});
