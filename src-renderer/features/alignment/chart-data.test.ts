import { describe, expect, it } from 'vitest';
import { seriesOf } from '../../testing/alignment-fixtures.js';
import {
  alertIndices,
  alertMarkers,
  baselineLength,
  countOnes,
  latestDriftSimilarity,
  monotoneTimes,
  rollingRate,
  similarityColumns,
  valueUsageRows,
} from './chart-data.js';

describe('chart data', () => {
  it('never lets the time axis go back: a trace stamped earlier is drawn at the time before it', () => {
    expect([...monotoneTimes([1000, 2000, 1990, 3000, 3000])]).toEqual([1000, 2000, 2000, 3000, 3000]);
    expect(monotoneTimes([])).toHaveLength(0);
  });

  it('takes the escalation rate over the last traces of the window, and over all of them before it fills', () => {
    const rate = rollingRate([1, 0, 0, 1, 1, 0], 4);
    expect([...rate]).toEqual([1, 0.5, 1 / 3, 0.5, 0.5, 0.5]);
    expect([...rollingRate([0, 0, 1], 1)]).toEqual([0, 0, 1]);
  });

  it('computes a rolling rate over 100,000 traces in one pass', () => {
    const flags = Array.from({ length: 100_000 }, (_, i) => (i % 10 === 0 ? 1 : 0));
    const rate = rollingRate(flags, 50);
    expect(rate).toHaveLength(100_000);
    expect(rate[99_999]).toBeCloseTo(0.1, 10);
    expect(countOnes(flags)).toBe(10_000);
  });

  it('marks drift alerts where they were raised, at the trace similarity or the threshold when it has none', () => {
    expect(alertIndices([0, 1, 0, 1])).toEqual([1, 3]);
    expect(alertMarkers([0, 1, 0, 1], [0.9, 0.2, 0.8, null], 0.3)).toEqual([null, 0.2, null, 0.3]);
  });

  it('finds where the baseline formed and the newest similarity to it', () => {
    expect(baselineLength([null, null, 0.9, 0.8])).toBe(2);
    expect(baselineLength([null, null])).toBeNull();
    expect(latestDriftSimilarity([null, 0.9, 0.7, null])).toBe(0.7);
    expect(latestDriftSimilarity([null])).toBeNull();
  });

  it('hands the similarity chart the contract columns themselves, plus the marker column', () => {
    const series = seriesOf({ count: 4, baseline: 2, alertsAt: [4] });
    const x = monotoneTimes(series.time);
    const columns = similarityColumns(series, x);
    expect(columns[0]).toBe(x);
    expect(columns[1]).toBe(series.driftSimilarity);
    expect(columns[2]).toBe(series.similarity);
    expect(columns[3]).toEqual([null, null, null, 0.9]);
  });

  it('orders values by use, with each one’s share of all applications', () => {
    expect(valueUsageRows({ privacy: 1, transparency: 3, honesty: 1 })).toEqual([
      { value: 'transparency', count: 3, share: 0.6 },
      { value: 'honesty', count: 1, share: 0.2 },
      { value: 'privacy', count: 1, share: 0.2 },
    ]);
    expect(valueUsageRows({})).toEqual([]);
  });
});
