import { describe, expect, it } from 'vitest';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { chainBadgeText, describeEvent, formatCount, formatEntryJson, formatLocalTime, summarizeData } from './audit-format.js';

describe('formatLocalTime', () => {
  it('shows the local date and time to the second', () => {
    const local = new Date(2026, 0, 2, 3, 4, 5);
    expect(formatLocalTime(local.toISOString())).toBe('2026-01-02 03:04:05');
  });

  it('passes an unparseable stamp through', () => {
    expect(formatLocalTime('not a time')).toBe('not a time');
  });
});

describe('summarizeData', () => {
  it('lists top-level pairs and reduces nested values to their shape', () => {
    expect(summarizeData({ tool: 'read_file', allowed: true, n: 3, args: { path: '/etc', mode: 'r' }, list: [1, 2], none: null })).toBe(
      'tool: read_file · allowed: true · n: 3 · args: {path, mode} · list: [2 items] · none: null',
    );
  });

  it('collapses whitespace so the summary stays on one line', () => {
    expect(summarizeData({ reason: 'line one\nline   two' })).toBe('reason: line one line two');
  });

  it('cuts long summaries with an ellipsis', () => {
    const summary = summarizeData({ text: 'x'.repeat(500) }, 40);
    expect(summary).toHaveLength(40);
    expect(summary.endsWith('…')).toBe(true);
  });

  it('shows a dash for empty data', () => {
    expect(summarizeData({})).toBe('—');
  });
});

describe('formatEntryJson', () => {
  it('pretty-prints every field of the entry in chain order', () => {
    const entry = auditEntry(7);
    const text = formatEntryJson(entry);
    expect(JSON.parse(text)).toEqual(entry);
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['index', 'id', 'ts', 'event', 'data', 'prevHash', 'hash']);
    expect(text).toContain('\n  "prevHash"');
  });
});

describe('chainBadgeText', () => {
  it('names each chain state', () => {
    expect(chainBadgeText({ status: 'unknown', entries: 0, firstInvalid: null })).toBe('Not verified');
    expect(chainBadgeText({ status: 'verifying', entries: 0, firstInvalid: null })).toBe('Verifying…');
    expect(chainBadgeText({ status: 'intact', entries: 12345, firstInvalid: null })).toBe('Chain intact · 12,345 entries verified');
    expect(chainBadgeText({ status: 'intact', entries: 1, firstInvalid: null })).toBe('Chain intact · 1 entry verified');
    expect(chainBadgeText({ status: 'broken', entries: 9, firstInvalid: { index: 4, id: 'e4', reason: 'hash mismatch' } })).toBe(
      'Chain broken at entry 4: hash mismatch',
    );
  });

  it('formats counts with group separators', () => {
    expect(formatCount(100000)).toBe('100,000');
  });
});

describe('describeEvent', () => {
  it('gives an event its category and summary from the catalogue', () => {
    expect(describeEvent('approvals.requested')).toEqual({ category: 'tool_approval', summary: expect.stringContaining('asked the person') });
  });

  it('describes a name an older version wrote like its name now', () => {
    expect(describeEvent('silas.plan_approved')).toEqual(describeEvent('silas.plan_approval.approved'));
    expect(describeEvent('silas.plan_approved').category).toBe('plan_approval');
  });

  it('leaves a name it does not know without a description', () => {
    expect(describeEvent('future.thing')).toEqual({ category: 'other', summary: null });
  });
});
