import { useMemo } from 'react';
import { groupBySource } from '../../../../src-shared/review/sources.js';
import type { DecisionCard } from '../../../../src-shared/schemas/review.js';
import { CardOrigin } from '../CardOrigin/CardOrigin.js';
import { moreFromSource } from '../review-format.js';
import { RiskBadge } from '../RiskBadge/RiskBadge.js';

/**
 * The numbered "up next" stack (spec 002 §0.5.1): intent and risk only, nothing to act on. One
 * line per source (docs/review.md "Sources"): its next card, who asked, and "N more from this
 * source", so a requester that floods takes one line and never buries the person's own servers.
 */
export function UpNext({ cards }: { cards: readonly DecisionCard[] }) {
  const groups = useMemo(() => groupBySource(cards), [cards]);
  if (groups.length === 0) return null;
  return (
    <section className="up-next" aria-labelledby="review-up-next">
      <h2 id="review-up-next">Up next</h2>
      <ol className="up-next__list" aria-labelledby="review-up-next">
        {groups.map(({ origin, cards: [next, ...more] }) => (
          <li key={next!.id} className="up-next__item">
            <span className="up-next__intent">{next!.intent}</span>
            <RiskBadge risk={next!.riskLevel} />
            {next!.origin ? (
              <span className="up-next__source">
                <CardOrigin origin={origin} />
                {more.length > 0 ? <span className="up-next__more"> — {moreFromSource(more.length)}</span> : null}
              </span>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
