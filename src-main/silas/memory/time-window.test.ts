import { describe, expect, it } from 'vitest';
import { timeWindowOf } from './time-window.js';

const NOW = new Date('2026-12-07T15:30:00.000Z');
const span = (text: string) => {
  const window = timeWindowOf(text, NOW);
  return window && [window.from.toISOString().slice(0, 10), window.to.toISOString().slice(0, 10), window.phrase];
};

describe('timeWindowOf: the time a message speaks of (§6.3 temporal)', () => {
  it('reads days, relative spans, months and ISO dates as half-open UTC windows', () => {
    expect(span('what did we decide yesterday?')).toEqual(['2026-12-06', '2026-12-07', 'yesterday']);
    expect(span('anything new today')).toEqual(['2026-12-07', '2026-12-08', 'today']);
    expect(span('the call 3 days ago')).toEqual(['2026-12-04', '2026-12-05', '3 days ago']);
    expect(span('what happened two weeks ago')).toEqual(['2026-11-19', '2026-11-27', 'two weeks ago']);
    expect(span('notes from last week')).toEqual(['2026-11-24', '2026-12-01', 'last week']);
    expect(span('in the past 3 days')).toEqual(['2026-12-05', '2026-12-08', 'in the past 3 days']);
    expect(span('what did I plan in March')).toEqual(['2026-03-01', '2026-04-01', 'in march']);
    expect(span('since october')).toEqual(['2026-10-01', '2026-12-08', 'since october']);
    expect(span('in january 2025')).toEqual(['2025-01-01', '2025-02-01', 'in january 2025']);
    expect(span('the meeting on 2026-11-03')).toEqual(['2026-11-03', '2026-11-04', '2026-11-03']);
  });

  it('"in December" said in December is this one; a month still ahead is last year\'s', () => {
    expect(span('in december')).toEqual(['2026-12-01', '2027-01-01', 'in december']);
    expect(timeWindowOf('in march', new Date('2026-02-10T00:00:00Z'))!.from.toISOString()).toBe('2025-03-01T00:00:00.000Z');
  });

  it('gives no window rather than a guess: no time phrase, an impossible date, words that only look like one', () => {
    for (const text of ['prefers tabs', 'the 2026-02-31 report', 'may I ask something', 'a march through town', '']) expect(timeWindowOf(text, NOW)).toBeNull();
  });
});
