import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { ChartColumns } from '../chart-data.js';
import type { ChartHandle, ChartSpec } from './uplot-chart.js';

/** uPlot and its options arrive in their own chunk, when a chart is first shown; the charts of a page share one load. */
let chartModule: Promise<typeof import('./uplot-chart.js')> | null = null;
const loadChart = () => {
  chartModule ??= import('./uplot-chart.js');
  // A failed load (a chunk the network lost) is tried again by the next chart.
  chartModule.catch(() => (chartModule = null));
  return chartModule;
};

export interface AlignmentChartProps {
  /** The chart's accessible name: what it shows and its size, for people who do not see it. */
  label: string;
  /** Fixed for the chart's life (a module constant or memoised): a new spec mounts a new chart. */
  spec: ChartSpec;
  columns: ChartColumns;
  /** The text summary shown beside the chart. */
  children?: ReactNode;
}

/**
 * A thin React wrapper around one uPlot chart: created once, handed new columns as traces are
 * appended. The plot reports each draw in `data-points` (how many traces it covered), which is
 * what end-to-end tests and the page benchmark wait for.
 */
export function AlignmentChart({ label, spec, columns, children }: AlignmentChartProps) {
  const frameRef = useRef<HTMLDivElement>(null);
  const hostRef = useRef<HTMLDivElement>(null);
  const handleRef = useRef<ChartHandle | null>(null);
  const latest = useRef(columns);
  /** The columns the chart holds, so the first columns are not drawn twice. */
  const shown = useRef<ChartColumns | null>(null);
  const [ready, setReady] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);

  useLayoutEffect(() => {
    latest.current = columns;
  });

  useEffect(() => {
    let disposed = false;
    const drawn = (points: number) => frameRef.current?.setAttribute('data-points', String(points));
    loadChart()
      .then(({ mountChart }) => {
        if (disposed || !hostRef.current) return null;
        shown.current = latest.current;
        return mountChart(hostRef.current, spec, latest.current, drawn);
      })
      .then(
        (handle) => {
          if (!handle) return;
          if (disposed) return handle.destroy();
          handleRef.current = handle;
          setReady(true);
        },
        (error: unknown) => {
          if (!disposed) setLoadError(error instanceof Error ? error.message : String(error));
        },
      );
    return () => {
      disposed = true;
      handleRef.current?.destroy();
      handleRef.current = null;
      setReady(false);
    };
  }, [spec]);

  useEffect(() => {
    if (!ready || !handleRef.current || shown.current === columns) return;
    shown.current = columns;
    handleRef.current.setData(columns);
  }, [ready, columns]);

  return (
    <figure className="alignment-chart">
      <div ref={frameRef} role="img" aria-label={label} className="alignment-chart__frame" aria-busy={!ready && !loadError}>
        <div ref={hostRef} className="alignment-chart__plot" />
      </div>
      {loadError ? (
        <p role="alert" className="notice notice--error">
          Could not draw the chart: {loadError}
        </p>
      ) : null}
      {children ? <figcaption className="alignment-chart__summary">{children}</figcaption> : null}
    </figure>
  );
}
