import { useId, useMemo } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { driftSummary, escalationLabel, escalationSummary, shortTraceId, similarityLabel } from '../alignment-format.js';
import { AlignmentChart } from '../AlignmentChart/AlignmentChart.js';
import type { ChartSpec } from '../AlignmentChart/uplot-chart.js';
import {
  alertIndices,
  baselineLength,
  countOnes,
  ESCALATION_WINDOW,
  latestDriftSimilarity,
  monotoneTimes,
  rollingRate,
  similarityColumns,
  type ChartColumns,
} from '../chart-data.js';
import { ValueUsage } from '../ValueUsage/ValueUsage.js';

/** The newest drift alerts listed under the chart, each openable in the trace inspector. */
const ALERTS_LISTED = 10;

const similaritySpec = (threshold: number): ChartSpec => ({
  series: [
    { label: 'Similarity to the baseline', color: 'accent', kind: 'line' },
    { label: 'Similarity to the card', color: 'muted', kind: 'line', dash: true },
    { label: 'Drift alert', color: 'bad', kind: 'markers' },
  ],
  y: { min: 0, max: 1 },
  rules: [{ value: threshold, color: 'warn' }],
  height: 220,
});

const ESCALATION_SPEC: ChartSpec = {
  series: [{ label: `Escalated, over the last ${ESCALATION_WINDOW} traces`, color: 'warn', kind: 'line' }],
  y: { min: 0, max: 1, percent: true },
  height: 160,
};

/** The selected agent's drift: similarity to its baseline and card, its escalation rate, and the values it applies. */
export function DriftCharts() {
  const headingId = useId();
  const series = useCockpit((s) => s.alignment.series);
  const status = useCockpit((s) => s.alignment.seriesStatus);
  const error = useCockpit((s) => s.alignment.seriesError);
  const { inspectTrace } = useCockpitActions();
  const threshold = series?.driftThreshold ?? 0;
  const simSpec = useMemo(() => similaritySpec(threshold), [threshold]);

  const view = useMemo(() => {
    if (!series || series.seq.length === 0) return null;
    const x = monotoneTimes(series.time);
    const rates = rollingRate(series.escalated);
    const escalation: ChartColumns = [x, rates];
    return {
      traces: series.seq.length,
      similarity: similarityColumns(series, x),
      escalation,
      alerts: alertIndices(series.alert),
      escalated: countOnes(series.escalated),
      recentRate: rates.length > 0 ? rates[rates.length - 1]! : null,
      baseline: baselineLength(series.driftSimilarity),
      latest: latestDriftSimilarity(series.driftSimilarity),
    };
  }, [series]);

  return (
    <section className="alignment-drift" aria-labelledby={headingId} aria-busy={status === 'loading'}>
      <h2 id={headingId}>Drift</h2>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the traces: {error}
        </p>
      ) : null}
      {view === null || series === null ? (
        <p className="alignment-drift__empty">{status === 'loading' || status === 'idle' ? 'Loading the traces…' : 'No traces recorded for this agent yet.'}</p>
      ) : (
        <>
          <h3>Similarity over time</h3>
          <AlignmentChart label={similarityLabel(view.traces, view.alerts.length)} spec={simSpec} columns={view.similarity}>
            <p>{driftSummary({ traces: view.traces, baseline: view.baseline, latest: view.latest, threshold, alerts: view.alerts.length })}</p>
            <p className="alignment-chart__key">
              <span className="alignment-key alignment-key--accent">Similarity to the baseline</span>
              <span className="alignment-key alignment-key--muted">Similarity to the card</span>
              <span className="alignment-key alignment-key--warn">Alert threshold {threshold.toFixed(2)}</span>
              <span className="alignment-key alignment-key--bad">Drift alert</span>
            </p>
            {view.alerts.length > 0 ? (
              <ul className="alignment-alerts" aria-label="Drift alerts">
                {view.alerts
                  .slice(-ALERTS_LISTED)
                  .reverse()
                  .map((i) => (
                    <li key={series.traceIds[i]}>
                      <time>{formatLocalTime(new Date(series.time[i]!).toISOString())}</time> {series.actions[i]}{' '}
                      <button type="button" className="button" aria-label={`Inspect trace ${series.traceIds[i]}`} onClick={() => inspectTrace(series.traceIds[i]!)}>
                        Inspect trace
                      </button>{' '}
                      <code>{shortTraceId(series.traceIds[i]!)}</code>
                    </li>
                  ))}
              </ul>
            ) : null}
          </AlignmentChart>
          <h3>Escalation rate, over the last {ESCALATION_WINDOW} traces</h3>
          <AlignmentChart label={escalationLabel(view.traces, view.escalated)} spec={ESCALATION_SPEC} columns={view.escalation}>
            <p>{escalationSummary(view.traces, view.escalated, view.recentRate, ESCALATION_WINDOW)}</p>
          </AlignmentChart>
          <ValueUsage usage={series.valueUsage} />
        </>
      )}
    </section>
  );
}
