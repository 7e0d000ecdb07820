import type { AuditEntry } from '../../src-shared/schemas/audit.js';

/*
 * Pure list logic for the audit log as the cockpit holds it: newest first, one entry per
 * index. Chain indexes are dense and start at 0, which lets us detect gaps and the end.
 */

/** Binary search over a newest-first list; `at` is where `index` is or would be inserted. */
export function locate(entries: readonly AuditEntry[], index: number): { found: boolean; at: number } {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const value = entries[mid]!.index;
    if (value === index) return { found: true, at: mid };
    if (value > index) low = mid + 1;
    else high = mid;
  }
  return { found: false, at: low };
}

/**
 * Adds a live entry. Returns the same array when nothing changes (already present, or older
 * than everything loaded, in which case paging will bring it) so callers can skip a render.
 */
export function insertLive(entries: readonly AuditEntry[], entry: AuditEntry): readonly AuditEntry[] {
  const newest = entries[0];
  if (!newest || entry.index > newest.index) return [entry, ...entries];
  const oldest = entries[entries.length - 1]!;
  if (entry.index < oldest.index) return entries;
  const { found, at } = locate(entries, entry.index);
  if (found) return entries;
  const next = entries.slice();
  next.splice(at, 0, entry);
  return next;
}

function sortedNewestFirst(entries: readonly AuditEntry[]): AuditEntry[] {
  return [...entries].sort((a, b) => b.index - a.index);
}

/** Merges two lists into one newest-first list without duplicates; `preferred` wins ties. */
export function mergeNewestFirst(preferred: readonly AuditEntry[], other: readonly AuditEntry[]): AuditEntry[] {
  const a = sortedNewestFirst(preferred);
  const b = sortedNewestFirst(other);
  const out: AuditEntry[] = [];
  let i = 0;
  let j = 0;
  const push = (entry: AuditEntry) => {
    if (out.length === 0 || out[out.length - 1]!.index !== entry.index) out.push(entry);
  };
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (x && (!y || x.index >= y.index)) {
      push(x);
      i += 1;
      if (y && y.index === x.index) j += 1;
    } else if (y) {
      push(y);
      j += 1;
    }
  }
  return out;
}

/** Appends a page of older entries (the answer to `audit.list({before})`). */
export function appendOlder(entries: readonly AuditEntry[], page: readonly AuditEntry[]): readonly AuditEntry[] {
  const oldest = entries[entries.length - 1];
  const older = sortedNewestFirst(oldest ? page.filter((entry) => entry.index < oldest.index) : page);
  if (older.length === 0) return entries;
  return entries.concat(older);
}

/**
 * Folds a fresh first page (after connect or reconnect) into what is already loaded. The
 * loaded history is kept only when it provably continues the fresh page: no gap between
 * them, the same hash where they overlap, and newer loaded entries linking onto the page's
 * newest by prevHash. Otherwise (entries missed while offline, a different chain) the fresh
 * page replaces everything.
 */
export function reconcileFirstPage(existing: readonly AuditEntry[], page: readonly AuditEntry[]): readonly AuditEntry[] {
  const fresh = sortedNewestFirst(page);
  const freshNewest = fresh[0];
  const freshOldest = fresh[fresh.length - 1];
  const loadedNewest = existing[0];
  if (!freshNewest || !freshOldest || !loadedNewest) return fresh;
  if (freshOldest.index > loadedNewest.index + 1) return fresh;
  for (const entry of fresh) {
    const { found, at } = locate(existing, entry.index);
    if (found && existing[at]!.hash !== entry.hash) return fresh;
  }
  // Loaded entries newer than the page (live events that overtook the answer) must chain onto it.
  const { found, at } = locate(existing, freshNewest.index + 1);
  if (found && existing[at]!.prevHash !== freshNewest.hash) return fresh;
  return mergeNewestFirst(fresh, existing);
}

/** True while older entries may exist on the runtime beyond the oldest one loaded. */
export function mayHaveOlder(entries: readonly AuditEntry[], total: number): boolean {
  const oldest = entries[entries.length - 1];
  return oldest !== undefined && oldest.index > 0 && entries.length < total;
}
