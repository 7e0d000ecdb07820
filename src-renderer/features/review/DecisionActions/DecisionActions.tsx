import { useId } from 'react';
import type { CardAction } from '../../../../src-shared/schemas/review.js';

export interface DecisionActionsProps {
  /** In the runtime's CTA order (§0.5.3): recommended first, the declining one last. Never reordered here. */
  actions: readonly CardAction[];
  /** A decision (on this or any card) is on its way: every button waits. */
  busy: boolean;
  /** The runtime's message for a failed decision on this card. */
  error: string | null;
  onDecide(choice: string): void;
}

function DecisionButton({ action, busy, onDecide }: { action: CardAction; busy: boolean; onDecide(choice: string): void }) {
  const consequenceId = useId();
  const { tone } = action;
  return (
    <div className={`approval-action approval-action--${tone}`}>
      <button type="button" className={`button approval-action__button approval-action__button--${tone}`} disabled={busy} aria-describedby={consequenceId} onClick={() => onDecide(action.choice)}>
        {action.label}
      </button>
      <span id={consequenceId} className="approval-action__consequence">
        {action.consequence}
      </span>
    </div>
  );
}

/** A card's buttons, each with its consequence label, and the state of the decision being sent. */
export function DecisionActions({ actions, busy, error, onDecide }: DecisionActionsProps) {
  return (
    <>
      <div className="approval-card__actions" role="group" aria-label="Decision">
        {actions.map((action) => (
          <DecisionButton key={action.choice} action={action} busy={busy} onDecide={onDecide} />
        ))}
      </div>
      {busy ? <p className="approval-card__sending">Sending your decision…</p> : null}
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not send your decision: {error}
        </p>
      ) : null}
    </>
  );
}
