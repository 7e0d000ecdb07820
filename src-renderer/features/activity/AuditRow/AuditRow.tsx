import { memo, type Ref } from 'react';
import type { AuditEntry } from '../../../../src-shared/schemas/audit.js';
import { describeEvent, formatEntryJson, formatLocalTime, summarizeData } from '../audit-format.js';

export interface AuditRowProps {
  entry: AuditEntry;
  /** Position in the loaded list; the virtualizer reads it back from `data-index` to measure. */
  position: number;
  /** How many entries the chain holds, so assistive technology can say "3 of 100,000". */
  setSize: number;
  /** Pixel offset from the top of the list. */
  start: number;
  expanded: boolean;
  onToggle(index: number): void;
  ref?: Ref<HTMLDivElement>;
}

/** One audit entry: a scannable line that expands to the entry exactly as stored. */
export const AuditRow = memo(function AuditRow({ entry, position, setSize, start, expanded, onToggle, ref }: AuditRowProps) {
  const detailId = `audit-entry-${entry.index}`;
  const kind = describeEvent(entry.event);
  return (
    <div
      ref={ref}
      role="listitem"
      data-index={position}
      data-category={kind.category}
      aria-posinset={position + 1}
      aria-setsize={setSize}
      className={expanded ? 'audit-row audit-row--expanded' : 'audit-row'}
      style={{ transform: `translateY(${start}px)` }}
    >
      <button
        type="button"
        className="audit-row__toggle"
        aria-expanded={expanded}
        aria-controls={expanded ? detailId : undefined}
        onClick={() => onToggle(entry.index)}
      >
        <span className="audit-row__index">#{entry.index}</span>
        <time className="audit-row__time" dateTime={entry.ts}>
          {formatLocalTime(entry.ts)}
        </time>
        <span className="audit-row__event" title={kind.summary ?? undefined}>
          {entry.event}
        </span>
        <span className="audit-row__summary">{summarizeData(entry.data)}</span>
      </button>
      {expanded ? (
        <pre id={detailId} className="audit-row__json">
          {formatEntryJson(entry)}
        </pre>
      ) : null}
    </div>
  );
});
