import { describe, expect, it } from 'vitest';
import { auditEntry, auditRange } from '../testing/audit-fixtures.js';
import { appendOlder, insertLive, locate, mayHaveOlder, mergeNewestFirst, reconcileFirstPage } from './audit-merge.js';

const indexes = (entries: readonly { index: number }[]) => entries.map((entry) => entry.index);

describe('locate', () => {
  it('finds entries and insertion points in a newest-first list', () => {
    const list = [auditEntry(9), auditEntry(7), auditEntry(4)];
    expect(locate(list, 7)).toEqual({ found: true, at: 1 });
    expect(locate(list, 8)).toEqual({ found: false, at: 1 });
    expect(locate(list, 10)).toEqual({ found: false, at: 0 });
    expect(locate(list, 1)).toEqual({ found: false, at: 3 });
  });
});

describe('insertLive', () => {
  it('prepends a newer entry', () => {
    expect(indexes(insertLive(auditRange(0, 4), auditEntry(5)))).toEqual([5, 4, 3, 2, 1, 0]);
  });

  it('starts an empty list', () => {
    expect(indexes(insertLive([], auditEntry(3)))).toEqual([3]);
  });

  it('ignores an entry that is already present and returns the same array', () => {
    const list = auditRange(0, 4);
    expect(insertLive(list, auditEntry(4))).toBe(list);
    expect(insertLive(list, auditEntry(2))).toBe(list);
  });

  it('fills a gap inside the loaded range in order', () => {
    const list = [auditEntry(9), auditEntry(7), auditEntry(6)];
    expect(indexes(insertLive(list, auditEntry(8)))).toEqual([9, 8, 7, 6]);
  });

  it('leaves entries older than everything loaded to paging', () => {
    const list = auditRange(10, 12);
    expect(insertLive(list, auditEntry(3))).toBe(list);
  });
});

describe('appendOlder', () => {
  it('appends an older page and drops what overlaps', () => {
    expect(indexes(appendOlder(auditRange(5, 8), auditRange(2, 6)))).toEqual([8, 7, 6, 5, 4, 3, 2]);
  });

  it('returns the same array when the page brings nothing new', () => {
    const list = auditRange(5, 8);
    expect(appendOlder(list, auditRange(5, 6))).toBe(list);
  });
});

describe('mergeNewestFirst', () => {
  it('merges, sorts and deduplicates, preferring the first list', () => {
    const preferred = [auditEntry(5, { id: 'fresh' }), auditEntry(3)];
    const merged = mergeNewestFirst(preferred, [auditEntry(6), auditEntry(5), auditEntry(4)]);
    expect(indexes(merged)).toEqual([6, 5, 4, 3]);
    expect(merged[1]!.id).toBe('fresh');
  });
});

describe('reconcileFirstPage', () => {
  it('keeps loaded history that continues the fresh page', () => {
    const loaded = auditRange(0, 100);
    expect(indexes(reconcileFirstPage(loaded, auditRange(95, 103))).slice(0, 5)).toEqual([103, 102, 101, 100, 99]);
    expect(reconcileFirstPage(loaded, auditRange(95, 103))).toHaveLength(104);
  });

  it('keeps history when the fresh page starts right after it', () => {
    expect(reconcileFirstPage(auditRange(0, 9), auditRange(10, 12))).toHaveLength(13);
  });

  it('replaces history when entries were missed in between', () => {
    expect(indexes(reconcileFirstPage(auditRange(0, 9), auditRange(20, 22)))).toEqual([22, 21, 20]);
  });

  it('keeps live entries newer than the page when they chain onto it', () => {
    expect(indexes(reconcileFirstPage([auditEntry(10)], auditRange(7, 9)))).toEqual([10, 9, 8, 7]);
  });

  it('replaces newer loaded entries that do not chain onto the page', () => {
    expect(indexes(reconcileFirstPage([auditEntry(10, {}, 'b')], auditRange(7, 9)))).toEqual([9, 8, 7]);
  });

  it('replaces history when an overlapping entry has a different hash', () => {
    const result = reconcileFirstPage(auditRange(0, 9), auditRange(5, 12, 'b'));
    expect(indexes(result)).toEqual([12, 11, 10, 9, 8, 7, 6, 5]);
  });

  it('empties the list when the runtime has no entries', () => {
    expect(reconcileFirstPage(auditRange(0, 3), [])).toEqual([]);
  });
});

describe('mayHaveOlder', () => {
  it('is true only while the oldest loaded entry is not the first of the chain', () => {
    expect(mayHaveOlder(auditRange(10, 20), 21)).toBe(true);
    expect(mayHaveOlder(auditRange(0, 20), 21)).toBe(false);
    expect(mayHaveOlder([], 0)).toBe(false);
  });
});
