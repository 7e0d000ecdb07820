import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AlignmentRuntime, FILES, SILAS, seriesOf } from '../../../testing/alignment-fixtures.js';
import { flushAll, renderAlignment } from '../../../testing/render-alignment.js';
import { chartOf, charts, resetCharts } from '../../../testing/uplot-fake.js';
import { DriftCharts } from './DriftCharts.js';

vi.mock('../AlignmentChart/uplot-chart.js', () => import('../../../testing/uplot-fake.js'));

beforeEach(resetCharts);
afterEach(cleanup);

/** 200 traces: a baseline of 20, every 10th escalated, drift alerts at traces 150 and 190. */
function runtimeWithHistory(): AlignmentRuntime {
  const runtime = new AlignmentRuntime();
  runtime.series.set(FILES, seriesOf({ count: 200, baseline: 20, escalatedEvery: 10, alertsAt: [150, 190], valueUsage: { transparency: 150, privacy: 50 } }));
  return runtime;
}

const drift = () => screen.getByRole('region', { name: 'Drift' });

describe('DriftCharts', () => {
  it('charts similarity to the baseline with its threshold and alerts, and the escalation rate, each named and summarised', async () => {
    await renderAlignment(<DriftCharts />, runtimeWithHistory(), FILES);
    const similarity = within(drift()).getByRole('img', { name: 'Similarity to baseline: 200 traces, 2 drift alerts' });
    const escalation = within(drift()).getByRole('img', { name: 'Escalation rate: 200 traces, 20 escalated (10.0%)' });
    await waitFor(() => expect(similarity.getAttribute('data-points')).toBe('200'));
    await waitFor(() => expect(escalation.getAttribute('data-points')).toBe('200'));

    const sim = chartOf('Similarity to the baseline');
    expect(sim.spec.rules).toEqual([{ value: 0.3, color: 'warn' }]);
    expect(sim.spec.series.map((s) => s.kind)).toEqual(['line', 'line', 'markers']);
    const [x, toBaseline, toCard, markers] = sim.columns[0]!;
    expect(x).toBeInstanceOf(Float64Array);
    expect(x.length).toBe(200);
    expect(toBaseline![0]).toBeNull();
    expect(toBaseline![20]).toBe(0.9);
    expect(toCard![0]).toBe(0.5);
    expect(Array.from(markers!).flatMap((m, i) => (m === null ? [] : [i]))).toEqual([149, 189]);
    expect(chartOf('Escalated').columns[0]![1]![199]).toBeCloseTo(0.1, 10);

    expect(within(drift()).getByText('200 traces; the baseline formed over the first 20 traces. Similarity to it is now 0.90 (alert threshold 0.30). 2 drift alerts.')).toBeTruthy();
    expect(within(drift()).getByText('20 of 200 traces escalated to you (10.0%). Over the last 50 traces: 10.0%.')).toBeTruthy();
  });

  it('lists value usage, most used first, with each share', async () => {
    await renderAlignment(<DriftCharts />, runtimeWithHistory(), FILES);
    const table = within(drift()).getByRole('table', { name: 'Value usage' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual(['transparency15075.0%', 'privacy5025.0%']);
    expect(within(table).getByRole('meter', { name: 'privacy: 25.0%' }).getAttribute('value')).toBe('0.25');
  });

  it('opens the trace of a drift alert in the inspector, newest alert first', async () => {
    const harness = await renderAlignment(<DriftCharts />, runtimeWithHistory(), FILES);
    const alerts = within(drift()).getByRole('list', { name: 'Drift alerts' });
    const buttons = within(alerts).getAllByRole('button');
    expect(buttons.map((b) => b.getAttribute('aria-label'))).toEqual(['Inspect trace tr-190', 'Inspect trace tr-150']);
    fireEvent.click(buttons[1]!);
    await flushAll();
    expect(harness.transport.callsTo('alignment.trace')).toEqual([{ traceId: 'tr-150' }]);
  });

  it('hands traces appended live to the same charts and updates their names', async () => {
    const harness = await renderAlignment(<DriftCharts />, runtimeWithHistory(), FILES);
    await waitFor(() => expect(charts).toHaveLength(2));
    act(() => harness.store.getState().alignmentSeriesAppended(seriesOf({ fromSeq: 201, count: 5, baseline: 0, alertsAt: [203] })));
    const similarity = within(drift()).getByRole('img', { name: 'Similarity to baseline: 205 traces, 3 drift alerts' });
    await waitFor(() => expect(similarity.getAttribute('data-points')).toBe('205'));
    expect(charts.filter((c) => !c.destroyed)).toHaveLength(2);
    expect(chartOf('Similarity to the baseline').columns).toHaveLength(2);
  });

  it('says when the agent has no trace yet, or while its traces load', async () => {
    await renderAlignment(<DriftCharts />, new AlignmentRuntime(), SILAS);
    expect(within(drift()).getByText('No traces recorded for this agent yet.')).toBeTruthy();
    expect(within(drift()).queryByRole('img')).toBeNull();
    expect(charts).toHaveLength(0);
  });

  it('says why the traces could not be loaded', async () => {
    const runtime = new AlignmentRuntime();
    const harness = await renderAlignment(<DriftCharts />, runtime);
    harness.transport.handle('alignment.series', () => ({ ok: false, error: { code: 'E_NOT_FOUND', message: 'no such agent' } }));
    act(() => harness.cockpit.actions.showAgent(FILES));
    expect(within(drift()).getByText('Loading the traces…')).toBeTruthy();
    await flushAll();
    expect(within(drift()).getByRole('alert').textContent).toBe('Could not load the traces: no such agent (E_NOT_FOUND)');
  });
});
