import type { SeriesColumns } from '../../store/alignment-series.js';

/*
 * What the charts draw, prepared from the columns `alignment.series` returns: typed arrays and
 * sparse columns built in one pass each, never one object per trace, so 100,000 traces cost a few
 * milliseconds here and go to uPlot as they are.
 */

/** The x column and one or more y columns, aligned (uPlot's AlignedData). */
export type ChartColumns = readonly [ArrayLike<number>, ...ArrayLike<number | null>[]];

/** Traces the rolling escalation rate is taken over. */
export const ESCALATION_WINDOW = 50;

/**
 * The trace times as a non-decreasing x column. Traces are recorded in chain order, and a proxy's
 * clock may stamp a decision a few milliseconds before one already recorded: a chart's x must
 * never go back, so such a trace is drawn at the time of the one before it.
 */
export function monotoneTimes(time: readonly number[]): Float64Array {
  const out = new Float64Array(time.length);
  let last = -Infinity;
  for (let i = 0; i < time.length; i += 1) {
    const t = time[i]!;
    last = t > last ? t : last;
    out[i] = last;
  }
  return out;
}

/**
 * The share of escalated traces among the last `window` at each trace (among all of them before
 * the window fills), from 0 to 1. One running sum: O(n) whatever the window.
 */
export function rollingRate(flags: readonly number[], window = ESCALATION_WINDOW): Float64Array {
  const out = new Float64Array(flags.length);
  let sum = 0;
  for (let i = 0; i < flags.length; i += 1) {
    sum += flags[i] ? 1 : 0;
    if (i >= window) sum -= flags[i - window] ? 1 : 0;
    out[i] = sum / Math.min(i + 1, window);
  }
  return out;
}

/** The indices of the traces that raised a drift alert. */
export function alertIndices(alert: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < alert.length; i += 1) if (alert[i] === 1) out.push(i);
  return out;
}

/**
 * A sparse column with a value only where a drift alert was raised: the trace's similarity to the
 * baseline, or `fallback` (the threshold) when it has none. Drawn as markers, not a line.
 */
export function alertMarkers(alert: readonly number[], similarity: readonly (number | null)[], fallback: number): (number | null)[] {
  const out = new Array<number | null>(alert.length).fill(null);
  for (const i of alertIndices(alert)) out[i] = similarity[i] ?? fallback;
  return out;
}

/** How many traces the drift baseline took (similarity to it is null until it formed); null while it has not. */
export function baselineLength(driftSimilarity: readonly (number | null)[]): number | null {
  const first = driftSimilarity.findIndex((value) => value !== null);
  return first < 0 ? null : first;
}

/** The newest similarity to the baseline, null when there is none yet. */
export function latestDriftSimilarity(driftSimilarity: readonly (number | null)[]): number | null {
  for (let i = driftSimilarity.length - 1; i >= 0; i -= 1) if (driftSimilarity[i] !== null) return driftSimilarity[i]!;
  return null;
}

/** The count of 1s in a 0/1 column. */
export function countOnes(flags: readonly number[]): number {
  let n = 0;
  for (const flag of flags) n += flag === 1 ? 1 : 0;
  return n;
}

/** Similarity chart: x, similarity to the baseline, similarity to the card, alert markers. */
export function similarityColumns(series: SeriesColumns, x: Float64Array): ChartColumns {
  return [x, series.driftSimilarity, series.similarity, alertMarkers(series.alert, series.driftSimilarity, series.driftThreshold)];
}

export interface ValueUsageRow {
  value: string;
  count: number;
  /** Of all value applications, 0..1. */
  share: number;
}

/** Values by how often they were applied, most used first (ties by name). */
export function valueUsageRows(usage: Readonly<Record<string, number>>): ValueUsageRow[] {
  const entries = Object.entries(usage);
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  return entries
    .map(([value, count]) => ({ value, count, share: total === 0 ? 0 : count / total }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
}
