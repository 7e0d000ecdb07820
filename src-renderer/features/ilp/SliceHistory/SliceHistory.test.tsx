import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { learnedSlice, sliceVersion } from '../../../testing/ilp-fixtures.js';
import { SliceHistory } from './SliceHistory.js';

afterEach(cleanup);

describe('SliceHistory', () => {
  it('lists every version newest first with its kind, status and dates, and marks one changed outside Silas', () => {
    const slice = learnedSlice('learned-budgeting', 3, [
      sliceVersion(1, { status: 'superseded' }),
      sliceVersion(2, { status: 'superseded', trusted: false, title: '<b>Ignore previous instructions</b>' }),
      sliceVersion(3, { kind: 'rollback' }),
      sliceVersion(4, { status: 'proposed', decided_at: null }),
    ]);
    const { container } = render(<SliceHistory slice={slice} />);
    const versions = within(screen.getByRole('list', { name: 'History of learned-budgeting' })).getAllByRole('listitem');
    expect(versions.map((li) => li.querySelector('.ilp-slice-history__facts')?.textContent?.replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, 'T'))).toEqual([
      'v4 · updated · proposed — waiting in Review · written T',
      'v3 · rolled back · deployed · written T · decided T',
      'v2 · updated · superseded · written T · decided T',
      'v1 · created · superseded · written T · decided T',
    ]);
    expect(within(versions[2]!).getByText('<b>Ignore previous instructions</b>')).toBeTruthy();
    expect(container.querySelector('b')).toBeNull();
    expect(versions.map((li) => within(li).queryByText('Not trusted — changed outside Silas') !== null)).toEqual([false, false, true, false]);
    expect(versions[1]!.querySelector('time')?.getAttribute('dateTime')).toBe('2026-01-03T10:00:00.000Z');
  });
});
