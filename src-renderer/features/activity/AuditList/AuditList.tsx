import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { AuditEntry } from '../../../../src-shared/schemas/audit.js';
import { locate } from '../../../store/audit-merge.js';
import { AuditRow } from '../AuditRow/AuditRow.js';

/** Collapsed row height in px; rows are measured after render, this only guides the first layout. */
const ROW_ESTIMATE = 30;
/** Fetch older entries when the last rendered row is this close to the end of what is loaded. */
const LOAD_AHEAD_ROWS = 100;

export interface AuditListProps {
  entries: readonly AuditEntry[];
  total: number;
  hasMore: boolean;
  loadingMore: boolean;
  onNearEnd(): void;
}

/**
 * The audit log, virtualised: only the rows in view (plus overscan) are in the DOM, so the
 * list stays smooth at 100,000 entries. Expansion is kept here by chain index because rows
 * unmount as they scroll away.
 */
export function AuditList({ entries, total, hasMore, loadingMore, onNearEnd }: AuditListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());

  const getItemKey = useCallback((position: number) => entries[position]?.index ?? -position - 1, [entries]);
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_ESTIMATE,
    getItemKey,
    overscan: 12,
    initialRect: { width: 0, height: 600 },
  });

  // A reader scrolled into the past should not see the log slide under them as live entries
  // arrive on top; at the very top, new entries should simply appear.
  const newest = entries[0]?.index;
  const previousNewest = useRef(newest);
  useLayoutEffect(() => {
    const before = previousNewest.current;
    previousNewest.current = newest;
    if (before === undefined || newest === undefined || newest <= before) return;
    const offset = virtualizer.scrollOffset ?? 0;
    if (offset <= 0) return;
    const added = locate(entries, before).at;
    if (added > 0) virtualizer.scrollToOffset(offset + added * ROW_ESTIMATE);
  }, [newest, entries, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const lastRendered = items[items.length - 1]?.index ?? -1;
  useEffect(() => {
    if (hasMore && !loadingMore && entries.length > 0 && lastRendered >= entries.length - LOAD_AHEAD_ROWS) onNearEnd();
  }, [hasMore, loadingMore, entries.length, lastRendered, onNearEnd]);

  const toggle = useCallback((index: number) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });
  }, []);

  return (
    <div ref={scrollRef} role="list" aria-label="Audit log" className="audit-list" tabIndex={0}>
      <div className="audit-list__sizer" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const entry = entries[item.index];
          if (!entry) return null;
          return (
            <AuditRow
              key={item.key}
              ref={virtualizer.measureElement}
              entry={entry}
              position={item.index}
              setSize={Math.max(total, entries.length)}
              start={item.start}
              expanded={expanded.has(entry.index)}
              onToggle={toggle}
            />
          );
        })}
      </div>
    </div>
  );
}
