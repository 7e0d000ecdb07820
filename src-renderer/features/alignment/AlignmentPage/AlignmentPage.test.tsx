import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AlignmentRuntime, FILES, seriesOf } from '../../../testing/alignment-fixtures.js';
import { flushAll, renderAlignment } from '../../../testing/render-alignment.js';
import { resetCharts } from '../../../testing/uplot-fake.js';
import { AlignmentPage } from './AlignmentPage.js';

vi.mock('../AlignmentChart/uplot-chart.js', () => import('../../../testing/uplot-fake.js'));

beforeEach(resetCharts);
afterEach(cleanup);

describe('AlignmentPage', () => {
  it('lists the agents and the fleet, and asks for an agent before showing its sections', async () => {
    await renderAlignment(<AlignmentPage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Alignment' })).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Alignment' })).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Agents' })).getAllByRole('button', { name: /^Show / })).toHaveLength(2);
    expect(screen.getByRole('region', { name: 'Fleet coherence' })).toBeTruthy();
    expect(screen.getByText('Show an agent to see its drift, its violations and its card.')).toBeTruthy();
    for (const name of ['Drift', 'Violations', 'Trace inspector', 'Alignment card']) expect(screen.queryByRole('region', { name })).toBeNull();
  });

  it('shows the chosen agent with its drift charts, violations, trace inspector and card', async () => {
    const runtime = new AlignmentRuntime();
    runtime.series.set(FILES, seriesOf({ count: 40, baseline: 10, alertsAt: [30] }));
    await renderAlignment(<AlignmentPage />, runtime);
    fireEvent.click(screen.getByRole('button', { name: `Show ${FILES}` }));
    await flushAll();
    const drift = screen.getByRole('region', { name: 'Drift' });
    const chart = within(drift).getByRole('img', { name: 'Similarity to baseline: 40 traces, 1 drift alert' });
    await waitFor(() => expect(chart.getAttribute('data-points')).toBe('40'));
    expect(within(drift).getByRole('img', { name: /^Escalation rate: 40 traces/ })).toBeTruthy();

    expect(within(screen.getByRole('region', { name: 'Alignment card' })).getByRole('textbox', { name: 'Card JSON' })).toBeTruthy();
    fireEvent.click(within(screen.getByRole('region', { name: 'Violations' })).getByRole('button', { name: 'Inspect trace tr-3' }));
    await flushAll();
    const inspector = screen.getByRole('region', { name: 'Trace inspector' });
    expect(within(inspector).getAllByRole('listitem').map((li) => li.textContent)).toContain('Forbidden Failed delete_file is a forbidden action');
  });
});
