import { useId } from 'react';
import type { DecisionAction } from '../review-format.js';

export type { DecisionAction };

export interface DecisionActionsProps<D extends string> {
  /** In CTA order: recommended first, the destructive or declining one last. */
  actions: readonly DecisionAction<D>[];
  /** A decision (on this or any card) is on its way: every button waits. */
  busy: boolean;
  /** The runtime's message for a failed decision on this card. */
  error: string | null;
  onDecide(decision: D): void;
}

function DecisionButton<D extends string>({ action, busy, onDecide }: { action: DecisionAction<D>; busy: boolean; onDecide(decision: D): void }) {
  const consequenceId = useId();
  const { tone } = action;
  return (
    <div className={`approval-action approval-action--${tone}`}>
      <button type="button" className={`button approval-action__button approval-action__button--${tone}`} disabled={busy} aria-describedby={consequenceId} onClick={() => onDecide(action.decision)}>
        {action.label}
      </button>
      <span id={consequenceId} className="approval-action__consequence">
        {action.consequence}
      </span>
    </div>
  );
}

/** The decision buttons of an approval card, with the state of the decision being sent. */
export function DecisionActions<D extends string>({ actions, busy, error, onDecide }: DecisionActionsProps<D>) {
  return (
    <>
      <div className="approval-card__actions" role="group" aria-label="Decision">
        {actions.map((action) => (
          <DecisionButton key={action.decision} action={action} busy={busy} onDecide={onDecide} />
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
