import { describe, expect, it } from 'vitest';
import { seriesOf } from '../testing/alignment-fixtures.js';
import { appendSeries, lastSeq, traceCount } from './alignment-series.js';

describe('alignment series columns', () => {
  it('knows the last seq held (0 when none), which is the afterSeq of the next refresh', () => {
    expect(lastSeq(null)).toBe(0);
    expect(lastSeq(seriesOf({ count: 0 }))).toBe(0);
    expect(lastSeq(seriesOf({ fromSeq: 10, count: 5 }))).toBe(14);
    expect(traceCount(seriesOf({ count: 5 }))).toBe(5);
  });

  it('appends the traces recorded since, column by column, and sums value usage', () => {
    const held = seriesOf({ count: 3, valueUsage: { privacy: 2, transparency: 1 } });
    const more = seriesOf({ fromSeq: 4, count: 2, alertsAt: [5], valueUsage: { privacy: 1, honesty: 1 } });
    const merged = appendSeries(held, more);
    expect(merged.seq).toEqual([1, 2, 3, 4, 5]);
    expect(merged.traceIds).toEqual(['tr-1', 'tr-2', 'tr-3', 'tr-4', 'tr-5']);
    expect(merged.alert).toEqual([0, 0, 0, 0, 1]);
    expect(merged.time).toHaveLength(5);
    expect(merged.driftSimilarity).toHaveLength(5);
    expect(merged.valueUsage).toEqual({ privacy: 3, transparency: 1, honesty: 1 });
    // The held columns are not mutated: the store's old state stays what it was.
    expect(held.seq).toEqual([1, 2, 3]);
  });

  it('skips traces already held, so a repeated answer counts nothing twice', () => {
    const held = seriesOf({ count: 3, valueUsage: { privacy: 3 } });
    const overlapping = seriesOf({ fromSeq: 2, count: 4, valueUsage: { privacy: 4 } });
    const merged = appendSeries(held, overlapping);
    expect(merged.seq).toEqual([1, 2, 3, 4, 5]);
    expect(merged.valueUsage).toEqual({ privacy: 3 });
    expect(appendSeries(merged, seriesOf({ fromSeq: 1, count: 5 }))).toBe(merged);
  });

  it('starts over from the answer when nothing, or another agent, is held', () => {
    const more = seriesOf({ count: 2 });
    expect(appendSeries(null, more)).toBe(more);
    expect(appendSeries(seriesOf({ agentId: 'silas', count: 9 }), more)).toBe(more);
  });
});
