import { useId } from 'react';
import type { ContextItemView, StreamContextView } from '../../../../src-shared/schemas/stream.js';
import { TaintBadge } from '../../../components/TaintBadge/TaintBadge.js';
import { Shown } from '../../review/DecisionCard/KindDetails.js';
import { countText, kindLabel, relevanceText, tokensText, zoneBudgetText, zoneLabel, zoneNote } from '../context-format.js';

type ZoneView = StreamContextView['zones'][number];

/**
 * One item of the context (spec 002 §3.5 ContextItem): what it is, where it came from, whose words
 * it holds (text from outside marked so), what it costs, the retriever's score for a memory,
 * whether eviction may take it, and the first characters of its text — as text, never markup.
 */
function ContextItemRow({ item }: { item: ContextItemView }) {
  return (
    <li className={`context-item context-item--${item.taint}`}>
      <p className="context-item__meta">
        <span className="context-item__kind">{kindLabel(item.kind)}</span>
        <span className="context-item__source">{item.source}</span>
        <TaintBadge taint={item.taint} />
        <span>{tokensText(item.tokens)}</span>
        {item.kind === 'memory' ? <span>{relevanceText(item.relevance)}</span> : null}
        {item.pinned ? (
          <span className="context-item__flag" title="Never evicted">
            pinned
          </span>
        ) : null}
        {item.masked ? (
          <span className="context-item__flag" title="An old tool result, replaced by a placeholder to save tokens">
            masked
          </span>
        ) : null}
        <span>turn {item.turn}</span>
      </p>
      {item.excerpt ? (
        <p className="context-item__excerpt">
          <Shown text={item.excerpt} />
        </p>
      ) : null}
    </li>
  );
}

/** One zone (§3.5 ContextZone): its tokens against its budget under the active profile, and its items, newest last. */
export function ContextZoneSection({ zone }: { zone: ZoneView }) {
  const headingId = useId();
  const name = zoneLabel(zone.zone);
  const over = zone.tokens > zone.budget;
  return (
    <section aria-labelledby={headingId} className="context-zone">
      <h3 id={headingId} className="context-zone__heading">
        {name}
      </h3>
      <p className={`context-zone__budget${over ? ' context-zone__budget--over' : ''}`}>
        {zoneBudgetText(zone)}
        {over ? ', over its budget' : ''}
      </p>
      <p className="context-zone__note">{zoneNote(zone.zone)}</p>
      {zone.omitted > 0 ? <p className="context-zone__note">{countText(zone.omitted, 'older item', 'older items')} not listed</p> : null}
      {zone.items.length === 0 ? (
        <p className="context-zone__empty">Nothing here yet.</p>
      ) : (
        <ul aria-label={`${name} items`} className="context-zone__items">
          {zone.items.map((item) => (
            <ContextItemRow key={item.ctx_id} item={item} />
          ))}
        </ul>
      )}
    </section>
  );
}
