import type { PendingPlanApproval } from '../../../../src-shared/schemas/plan-approval.js';
import type { PlanDecision } from '../../../lib/cockpit.js';
import { isElevated } from '../../../store/approval-queue.js';
import { shortPlanHash } from '../../../store/plans-slice.js';
import { CardDetails } from '../CardDetails/CardDetails.js';
import { Countdown } from '../Countdown/Countdown.js';
import { DecisionActions } from '../DecisionActions/DecisionActions.js';
import { budgetSummary, gatesText, planActionsFor, planCardName, planCountdownText, planIntentLine } from '../plan-format.js';
import { RiskBadge } from '../RiskBadge/RiskBadge.js';

export interface PlanApprovalCardProps {
  card: PendingPlanApproval;
  /** A decision (on this or any card) is on its way: every button waits. */
  busy: boolean;
  /** The runtime's message for a failed decision on this card. */
  error: string | null;
  onDecide(decision: PlanDecision): void;
}

function Checks({ checks }: { checks: PendingPlanApproval['verify'] }) {
  if (checks.length === 0) return <>None — nothing would decide success</>;
  return (
    <ul className="plan-card__checks" aria-label="Checks">
      {checks.map((check, index) => (
        <li key={`${index}-${check.name}`}>
          <strong>{check.name}</strong>: <code>{check.run}</code>
          {check.network ? ' ' : null}
          {check.network ? <span className="risk-badge risk-badge--high plan-card__network">needs network</span> : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * One plan approval (spec 002 §5.11, card contract §0.5.3): `silas run plan.md` asks to run this
 * exact plan. Intent, risk and rationale, the plan hash's first 8 characters (the terminal asks
 * for the same ones) with the full hash behind them, where the plan came from, its budget, the
 * checks that alone decide success, skills and gates, time left, the buttons with their
 * consequences, and the plan text behind Details — open from the start for high and critical risk.
 * The plan body is only ever rendered as text.
 */
export function PlanApprovalCard({ card, busy, error, onDecide }: PlanApprovalCardProps) {
  const short = shortPlanHash(card.planHash);
  return (
    <article className={`approval-card plan-card approval-card--${card.risk}`} aria-label={planCardName(card)} aria-busy={busy || undefined}>
      <header className="approval-card__header">
        <h2 className="approval-card__intent">{planIntentLine(card)}</h2>
        <RiskBadge risk={card.risk} />
      </header>
      <dl className="approval-card__facts">
        <div>
          <dt>Why</dt>
          <dd>{card.rationale}</dd>
        </div>
        <div>
          <dt>Risk</dt>
          <dd>{card.riskReasons.join('; ')}</dd>
        </div>
        <div>
          <dt>Plan</dt>
          <dd>
            <strong className="plan-card__hash" title={card.planHash}>
              <code aria-label={`Plan hash starts ${short}`}>{short}</code>
            </strong>{' '}
            — <code>silas run</code> shows the same 8 characters
          </dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>
            <code>{card.source}</code>
          </dd>
        </div>
        <div>
          <dt>Budget</dt>
          <dd>{budgetSummary(card.budget)}</dd>
        </div>
        <div>
          <dt>Checks</dt>
          <dd>
            <Checks checks={card.verify} />
          </dd>
        </div>
        <div>
          <dt>Skills</dt>
          <dd>{card.skills.length > 0 ? card.skills.join(', ') : 'None'}</dd>
        </div>
        <div>
          <dt>Gates</dt>
          <dd>{gatesText(card.gates)}</dd>
        </div>
      </dl>
      <Countdown expiresAt={card.expiresAt} text={planCountdownText} />
      <DecisionActions actions={planActionsFor(card.risk)} busy={busy} error={error} onDecide={onDecide} />
      <CardDetails initiallyOpen={isElevated(card.risk)}>
        <dl className="approval-card__facts">
          <div>
            <dt>Hash</dt>
            <dd>
              <code aria-label="Full plan hash">{card.planHash}</code>
            </dd>
          </div>
          <div>
            <dt>Item</dt>
            <dd>
              <code>{card.workItemId}</code>
            </dd>
          </div>
        </dl>
        <p className="approval-card__details-note">The plan&apos;s briefing, shown as plain text:</p>
        <pre className="approval-card__args" aria-label="Plan briefing">
          {card.body || '(no briefing)'}
        </pre>
      </CardDetails>
    </article>
  );
}
