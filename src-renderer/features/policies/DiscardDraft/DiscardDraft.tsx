import { useEffect, useId, useRef } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { fileName } from '../policy-editor-format.js';

/**
 * Asked before an unsaved draft is dropped (another policy opened, the editor closed). Focus
 * goes to "Keep editing", so Enter or a stray key press never discards work.
 */
export function DiscardDraft() {
  const titleId = useId();
  const textId = useId();
  const discard = useCockpit((s) => s.policyEditor.discard);
  const { settleDiscard } = useCockpitActions();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (discard) keep.current?.focus();
  }, [discard]);
  if (!discard) return null;
  const then = discard.next === null ? 'close the editor' : discard.next === discard.path ? `read ${fileName(discard.next)} again from disk` : `open ${fileName(discard.next)}`;
  return (
    <div className="discard-draft notice notice--warn" role="alertdialog" aria-labelledby={titleId} aria-describedby={textId}>
      <h2 id={titleId}>Unsaved changes</h2>
      <p id={textId}>
        Your changes to {fileName(discard.path)} are not saved. Discard them and {then}?
      </p>
      <div className="discard-draft__actions">
        <button type="button" className="button" ref={keep} onClick={() => settleDiscard(false)}>
          Keep editing
        </button>
        <button type="button" className="button button--warn" onClick={() => settleDiscard(true)}>
          Discard changes
        </button>
      </div>
    </div>
  );
}
