import { useEffect, useId, useRef } from 'react';

export interface DiscardQuestionProps {
  title: string;
  /** What would be lost, and what happens instead: "Your changes to X are not saved. Discard them and …?" */
  text: string;
  onAnswer(discard: boolean): void;
}

/**
 * Asked before unsaved work is dropped (a policy draft, an Alignment Card draft). Focus goes to
 * "Keep editing" when it appears, so Enter or a stray key press never discards work.
 */
export function DiscardQuestion({ title, text, onAnswer }: DiscardQuestionProps) {
  const titleId = useId();
  const textId = useId();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    keep.current?.focus();
  }, [text]);
  return (
    <div className="discard-draft notice notice--warn" role="alertdialog" aria-labelledby={titleId} aria-describedby={textId}>
      <h2 id={titleId}>{title}</h2>
      <p id={textId}>{text}</p>
      <div className="discard-draft__actions">
        <button type="button" className="button" ref={keep} onClick={() => onAnswer(false)}>
          Keep editing
        </button>
        <button type="button" className="button button--warn" onClick={() => onAnswer(true)}>
          Discard changes
        </button>
      </div>
    </div>
  );
}
