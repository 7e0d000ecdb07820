import type { PendingApproval } from '../../../../src-shared/schemas/approval.js';
import { isElevated } from '../../../store/approval-queue.js';
import { CardDetails } from '../CardDetails/CardDetails.js';
import { Countdown } from '../Countdown/Countdown.js';
import { DecisionActions } from '../DecisionActions/DecisionActions.js';
import { RiskBadge } from '../RiskBadge/RiskBadge.js';
import { actionsFor, cardName, formatArgs, intentLine, type ApprovalChoice } from '../review-format.js';

export interface ApprovalCardProps {
  card: PendingApproval;
  /** A decision (on this or any card) is on its way: every button waits. */
  busy: boolean;
  /** The runtime's message for a failed decision on this card. */
  error: string | null;
  onDecide(decision: ApprovalChoice): void;
}

/**
 * The one active decision (spec 002 §0.5.1, card contract §0.5.3): intent, risk, the policy's
 * rationale, time left, the buttons with their consequences in CTA order, and the full
 * (DLP-redacted) arguments behind Details — open from the start for high and critical risk.
 */
export function ApprovalCard({ card, busy, error, onDecide }: ApprovalCardProps) {
  return (
    <article className={`approval-card approval-card--${card.risk}`} aria-label={cardName(card)} aria-busy={busy || undefined}>
      <header className="approval-card__header">
        <h2 className="approval-card__intent">{intentLine(card)}</h2>
        <RiskBadge risk={card.risk} />
      </header>
      <dl className="approval-card__facts">
        <div>
          <dt>Why</dt>
          <dd>{card.reason || `Policy ${card.policyName} asks before this call.`}</dd>
        </div>
        <div>
          <dt>Rule</dt>
          <dd>
            <code>{card.rule || '(none)'}</code> in policy <strong>{card.policyName}</strong>
          </dd>
        </div>
      </dl>
      <Countdown expiresAt={card.expiresAt} />
      <DecisionActions actions={actionsFor(card.risk)} busy={busy} error={error} onDecide={onDecide} />
      <CardDetails initiallyOpen={isElevated(card.risk)}>
        <p className="approval-card__details-note">Arguments as the proxy sent them, with secrets redacted:</p>
        <pre className="approval-card__args" aria-label="Arguments">
          {formatArgs(card.args)}
        </pre>
      </CardDetails>
    </article>
  );
}
