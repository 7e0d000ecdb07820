import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { charts, failures, resetCharts } from '../../../testing/uplot-fake.js';
import type { ChartColumns } from '../chart-data.js';
import { AlignmentChart } from './AlignmentChart.js';
import type { ChartSpec } from './uplot-chart.js';

vi.mock('./uplot-chart.js', () => import('../../../testing/uplot-fake.js'));

beforeEach(resetCharts);
afterEach(cleanup);

const SPEC: ChartSpec = { series: [{ label: 'Similarity', color: 'accent', kind: 'line' }], y: { min: 0, max: 1 }, height: 100 };
const first: ChartColumns = [new Float64Array([1, 2, 3]), [0.5, 0.6, 0.7]];
const more: ChartColumns = [new Float64Array([1, 2, 3, 4]), [0.5, 0.6, 0.7, 0.8]];

describe('AlignmentChart', () => {
  it('draws the columns as given under its accessible name, reports the points drawn, and shows its summary', async () => {
    render(
      <AlignmentChart label="Similarity to baseline: 3 traces, 0 drift alerts" spec={SPEC} columns={first}>
        <p>3 traces.</p>
      </AlignmentChart>,
    );
    const chart = screen.getByRole('img', { name: 'Similarity to baseline: 3 traces, 0 drift alerts' });
    await waitFor(() => expect(chart.getAttribute('data-points')).toBe('3'));
    expect(charts).toHaveLength(1);
    expect(charts[0]!.columns[0]).toBe(first);
    expect(charts[0]!.spec).toBe(SPEC);
    expect(chart.contains(charts[0]!.host)).toBe(true);
    await waitFor(() => expect(chart.getAttribute('aria-busy')).toBe('false'));
    expect(screen.getByText('3 traces.').closest('figcaption')).toBeTruthy();
  });

  it('hands appended columns to the same chart, without drawing the first ones twice, and destroys it when unmounted', async () => {
    const { rerender, unmount } = render(<AlignmentChart label="c" spec={SPEC} columns={first} />);
    await waitFor(() => expect(screen.getByRole('img', { name: 'c' }).getAttribute('data-points')).toBe('3'));
    rerender(<AlignmentChart label="c" spec={SPEC} columns={first} />);
    expect(charts[0]!.columns).toHaveLength(1);
    rerender(<AlignmentChart label="c" spec={SPEC} columns={more} />);
    await waitFor(() => expect(screen.getByRole('img', { name: 'c' }).getAttribute('data-points')).toBe('4'));
    expect(charts).toHaveLength(1);
    expect(charts[0]!.columns).toEqual([first, more]);
    unmount();
    expect(charts[0]!.destroyed).toBe(true);
  });

  it('says so when the chart cannot be drawn', async () => {
    failures.push(new Error('chunk failed to load'));
    render(<AlignmentChart label="c" spec={SPEC} columns={first} />);
    expect((await screen.findByRole('alert')).textContent).toBe('Could not draw the chart: chunk failed to load');
    expect(screen.getByRole('img', { name: 'c' }).hasAttribute('data-points')).toBe(false);
  });
});
