import { describe, expect, it } from 'vitest';
import { formatDuration, MAX_DURATION_MS, parseDuration, parseRate, parseSize } from './formats.js';

function value<T>(result: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function message(result: { ok: boolean; message?: string }): string {
  expect(result.ok).toBe(false);
  return result.message!;
}

describe('parseDuration', () => {
  it.each([
    ['0s', 0],
    ['1s', 1_000],
    ['45s', 45_000],
    ['300s', 300_000],
    ['1m', 60_000],
    ['4m', 240_000],
    ['5m', 300_000],
    ['50m', 3_000_000],
    ['1h', 3_600_000],
    ['7d', 604_800_000],
    ['1h30m', 5_400_000],
    ['1d12h', 129_600_000],
    ['250ms', 250],
    ['1m30s500ms', 90_500],
    ['365d', MAX_DURATION_MS],
  ])('%s = %d ms', (text, ms) => {
    expect(value(parseDuration(text))).toBe(ms);
  });

  it.each([
    ['', /empty duration/],
    ['5', /has no unit.*"5s"/],
    ['0', /has no unit/],
    ['-5m', /cannot have a sign/],
    ['+5m', /cannot have a sign/],
    ['1.5h', /fractions are not accepted.*"90m"/],
    ['5 m', /is not a duration/],
    [' 5m', /surrounding whitespace/],
    ['5M', /is not a duration/],
    ['5min', /is not a duration/],
    ['1e9s', /is not a duration/],
    ['5us', /is not a duration/],
    ['30m1h', /largest first/],
    ['1m1m', /largest first/],
    ['366d', /maximum of 365d/],
    ['99999999999999999999s', /maximum of 365d/],
    ['9007199254740993ms', /maximum of 365d/],
    ['m', /is not a duration/],
  ])('rejects %j', (text, pattern) => {
    expect(message(parseDuration(text))).toMatch(pattern);
  });

  it('formats milliseconds back into the largest exact unit', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(300_000)).toBe('5m');
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(604_800_000)).toBe('7d');
    expect(formatDuration(1_500)).toBe('1500ms');
  });
});

describe('parseSize', () => {
  it.each([
    ['1MB', 1_048_576],
    ['512KB', 524_288],
    ['10MB', 10_485_760],
    ['1MiB', 1_048_576],
    ['2048B', 2_048],
    ['64MB', 67_108_864],
  ])('%s = %d bytes (binary units)', (text, bytes) => {
    expect(value(parseSize(text))).toBe(bytes);
  });

  it.each([
    ['0MB', /greater than zero/],
    ['1.5MB', /fractions are not accepted/],
    ['-1MB', /cannot be negative/],
    ['1 MB', /no space/],
    ['1024', /has no unit/],
    ['1mb', /unknown unit \(units are case-sensitive\)/],
    ['1TB', /is not a size/],
    ['65MB', /larger than the maximum of 64MB/],
    ['1GB', /larger than the maximum/],
    ['', /is not a size/],
  ])('rejects %j', (text, pattern) => {
    expect(message(parseSize(text))).toMatch(pattern);
  });
});

describe('parseRate (§3.5.2)', () => {
  it.each([
    ['10/minute', 10, 60_000],
    ['100/hour', 100, 3_600_000],
    ['5/second', 5, 1_000],
    ['1/sec', 1, 1_000],
    ['2/s', 2, 1_000],
    ['3/min', 3, 60_000],
    ['4/m', 4, 60_000],
    ['6/hr', 6, 3_600_000],
    ['7/h', 7, 3_600_000],
    ['1000000/second', 1_000_000, 1_000],
  ])('%s', (text, count, periodMs) => {
    expect(value(parseRate(text))).toEqual({ count, periodMs });
  });

  it.each([
    ['0/minute', /at least 1 .*action: block/],
    ['10/fortnight', /unknown period "fortnight"/],
    ['-1/s', /without a sign/],
    ['+1/s', /without a sign/],
    ['1.5/m', /whole number, got 1\.5/],
    ['99999999999999/s', /larger than the maximum of 1000000/],
    ['1000001/s', /larger than the maximum/],
    ['1e9/second', /without an exponent/],
    ['10/Minute', /lowercase; write "10\/minute"/],
    ['10 / minute', /no spaces/],
    ['10/minute/2', /is not a rate limit/],
    ['10', /is not a rate limit/],
    ['ten/minute', /is not a number/],
    ['010/minute', /leading zeros/],
    ['/minute', /is not a number/],
    ['10/', /unknown period ""/],
    ['10/toString', /unknown period "toString"/],
    ['10/__proto__', /unknown period/],
  ])('rejects %j', (text, pattern) => {
    expect(message(parseRate(text))).toMatch(pattern);
  });
});
