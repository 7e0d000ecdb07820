import { useEffect, useId, useRef } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';

/**
 * Asked before another agent replaces a card draft that was not saved. Focus goes to "Keep
 * editing", so a stray Enter never discards the person's work.
 */
export function CardDiscard() {
  const titleId = useId();
  const textId = useId();
  const question = useCockpit((s) => s.alignment.cardDiscard);
  const { settleCardDiscard } = useCockpitActions();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (question) keep.current?.focus();
  }, [question]);
  if (!question) return null;
  return (
    <div className="discard-draft notice notice--warn" role="alertdialog" aria-labelledby={titleId} aria-describedby={textId}>
      <h2 id={titleId}>Unsaved card</h2>
      <p id={textId}>
        Your changes to the card of {question.agentId} are not saved. Discard them and show {question.next}?
      </p>
      <div className="discard-draft__actions">
        <button type="button" className="button" ref={keep} onClick={() => settleCardDiscard(false)}>
          Keep editing
        </button>
        <button type="button" className="button button--warn" onClick={() => settleCardDiscard(true)}>
          Discard changes
        </button>
      </div>
    </div>
  );
}
