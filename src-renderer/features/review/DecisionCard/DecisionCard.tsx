import type { DecisionCard as Card } from '../../../../src-shared/schemas/review.js';
import { isElevated } from '../../../store/review-queue.js';
import { CardDetails } from '../CardDetails/CardDetails.js';
import { Countdown } from '../Countdown/Countdown.js';
import { DecisionActions } from '../DecisionActions/DecisionActions.js';
import { CardOrigin } from '../CardOrigin/CardOrigin.js';
import { cardName, EXPIRED_TEXT, isAttributed } from '../review-format.js';
import { attribution } from '../../../../src-shared/review/sources.js';
import { RiskBadge } from '../RiskBadge/RiskBadge.js';
import { Fact } from '../../../components/Fact/Fact.js';
import { KindDetails } from './KindDetails.js';

export interface DecisionCardProps {
  card: Card;
  /** A decision (on this or any card) is on its way: every button waits. */
  busy: boolean;
  /** The runtime's message for a failed decision on this card. */
  error: string | null;
  onDecide(choice: string): void;
}

/**
 * The one active decision (spec 002 §0.5.1), drawn by the card contract of §0.5.3 whatever its
 * kind: intent, risk, rationale and the reasons for the risk, what it affects, time left (only
 * for a request that expires), the runtime's buttons in its CTA order with their consequences,
 * and the kind's full payload behind Details — open from the start for high and irreversible risk.
 * Who asked comes first ("From": requester, channel, taint), and a requester's own words are
 * quoted as its words.
 */
export function DecisionCard({ card, busy, error, onDecide }: DecisionCardProps) {
  return (
    <article className={`approval-card approval-card--${card.riskLevel}`} aria-label={cardName(card)} aria-busy={busy || undefined}>
      <header className="approval-card__header">
        <h2 className="approval-card__intent">{card.intent}</h2>
        <RiskBadge risk={card.riskLevel} />
      </header>
      <dl className="approval-card__facts">
        {card.origin ? (
          <Fact term="From">
            <CardOrigin origin={card.origin} />
          </Fact>
        ) : null}
        {card.rationale ? <Fact term="Why">{isAttributed(card.origin) ? `${attribution(card.origin)}: “${card.rationale}”` : card.rationale}</Fact> : null}
        {card.riskReasons.length > 0 ? <Fact term="Risk">{card.riskReasons.join('; ')}</Fact> : null}
        {card.affectedItems ? <Fact term="Affects">{`${card.affectedItems.count.toLocaleString('en-US')}: ${card.affectedItems.summary}`}</Fact> : null}
      </dl>
      {card.expiresAt !== null ? <Countdown expiresAt={card.expiresAt} expired={EXPIRED_TEXT[card.kind]} /> : null}
      <DecisionActions actions={card.actions} busy={busy} error={error} onDecide={onDecide} />
      <CardDetails initiallyOpen={isElevated(card.riskLevel)}>
        <KindDetails card={card} />
      </CardDetails>
    </article>
  );
}
