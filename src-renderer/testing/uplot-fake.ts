import type { ChartColumns } from '../features/alignment/chart-data.js';
import type { ChartHandle, ChartSpec } from '../features/alignment/AlignmentChart/uplot-chart.js';

/**
 * Stands in for features/alignment/AlignmentChart/uplot-chart.ts (jsdom has no canvas): records
 * what each chart was given and reports a draw as uPlot's draw hook would. Use with
 * `vi.mock('…/uplot-chart.js', () => import('…/test/uplot-fake.js'))`.
 */
export interface FakeChart {
  host: HTMLElement;
  spec: ChartSpec;
  columns: ChartColumns[];
  destroyed: boolean;
}

export const charts: FakeChart[] = [];

/** Errors the next mounts fail with, in order (uPlot's chunk failing to load). */
export const failures: Error[] = [];

export function resetCharts(): void {
  charts.length = 0;
  failures.length = 0;
}

/** The live chart whose first series is labelled `label`. */
export function chartOf(label: string): FakeChart {
  const chart = charts.find((c) => !c.destroyed && c.spec.series[0]?.label.startsWith(label));
  if (!chart) throw new Error(`no chart "${label}" (have: ${charts.map((c) => c.spec.series[0]?.label).join(', ')})`);
  return chart;
}

export function mountChart(host: HTMLElement, spec: ChartSpec, columns: ChartColumns, onDrawn: (points: number) => void): Promise<ChartHandle> {
  const failure = failures.shift();
  if (failure) return Promise.reject(failure);
  const chart: FakeChart = { host, spec, columns: [columns], destroyed: false };
  charts.push(chart);
  onDrawn(columns[0].length);
  return Promise.resolve({
    setData(next) {
      chart.columns.push(next);
      onDrawn(next[0].length);
    },
    destroy() {
      chart.destroyed = true;
    },
  });
}
