import { useId } from 'react';
import { ZONE_ORDER } from '../../../../src-shared/silas/context.js';
import type { StreamContextView } from '../../../../src-shared/schemas/stream.js';
import { Fact } from '../../../components/Fact/Fact.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { evictedSummary, reasonsSummary, tierText } from '../context-format.js';

/**
 * The last eviction of the conversation (spec 002 §5.7 two-tier eviction): in which turn, which
 * tier decided, how many items left which zones and why. What left is kept in memory as an episode.
 */
export function ContextEviction({ eviction }: { eviction: StreamContextView['last_eviction'] }) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="context-eviction">
      <h3 id={headingId} className="context-zone__heading">
        Last eviction
      </h3>
      {eviction === null ? (
        <p className="context-zone__empty">Nothing has been evicted from this conversation yet.</p>
      ) : (
        <dl className="context-inspector__facts">
          <Fact term="When">
            turn {eviction.turn}, <time dateTime={eviction.at}>{formatLocalTime(eviction.at)}</time>
          </Fact>
          <Fact term="Tier">{tierText(eviction.tier)}</Fact>
          <Fact term="Evicted">{evictedSummary(eviction, ZONE_ORDER)}</Fact>
          {eviction.items.length > 0 ? <Fact term="Reasons">{reasonsSummary(eviction.items)}</Fact> : null}
          <Fact term="Why">{eviction.why}</Fact>
        </dl>
      )}
    </section>
  );
}
