import type { DecisionCard } from '../../../../src-shared/schemas/review.js';
import { RiskBadge } from '../RiskBadge/RiskBadge.js';

/** The numbered "up next" stack (spec 002 §0.5.1): intent and risk only, nothing to act on. */
export function UpNext({ cards }: { cards: readonly DecisionCard[] }) {
  if (cards.length === 0) return null;
  return (
    <section className="up-next" aria-labelledby="review-up-next">
      <h2 id="review-up-next">Up next</h2>
      <ol className="up-next__list" aria-labelledby="review-up-next">
        {cards.map((card) => (
          <li key={card.id} className="up-next__item">
            <span className="up-next__intent">{card.intent}</span>
            <RiskBadge risk={card.riskLevel} />
          </li>
        ))}
      </ol>
    </section>
  );
}
