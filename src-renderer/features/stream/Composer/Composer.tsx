import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';

/**
 * Where the person writes to Silas. Enter sends, Shift+Enter starts a new line. The text leaves
 * the field at once and comes back if the runtime did not take it, unless something new was
 * typed meanwhile. Stop is there only while a turn runs. A suggestion the person picked (a chip
 * from the executor, DecisionChips) arrives as `suggestion`: it replaces the text and waits for
 * the person to send it; nothing is sent for them.
 */
export function Composer({ suggestion = null }: { suggestion?: { text: string; seq: number } | null }) {
  const busy = useCockpit((s) => s.stream.busy);
  const sending = useCockpit((s) => s.stream.sending);
  const error = useCockpit((s) => s.stream.composerError);
  const { sendMessage, cancelTurn } = useCockpitActions();
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (suggestion === null) return;
    setText(suggestion.text);
    input.current?.focus();
  }, [suggestion]);
  const hintId = useId();
  const errorId = useId();
  const empty = text.trim() === '';

  const send = () => {
    if (empty || sending) return;
    const sent = text;
    setText('');
    void sendMessage(sent).then((taken) => {
      if (!taken) setText((current) => (current === '' ? sent : current));
    });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };

  const keyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // An IME composing a character uses Enter to confirm it, not to send.
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  };

  return (
    <form className="composer" onSubmit={submit} noValidate>
      {error ? (
        <p id={errorId} role="alert" className="notice notice--error composer__error">
          {error.action === 'send' ? 'Could not send your message' : 'Could not stop the turn'}: {error.message}
        </p>
      ) : null}
      <textarea
        ref={input}
        className="composer__input"
        aria-label="Message to Silas"
        aria-describedby={error ? `${errorId} ${hintId}` : hintId}
        rows={3}
        placeholder="Ask Silas, or say what you want done"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={keyDown}
      />
      <div className="composer__bar">
        <span id={hintId} className="composer__hint">
          Enter sends · Shift+Enter for a new line
        </span>
        {busy ? (
          <button type="button" className="button composer__stop" onClick={cancelTurn}>
            Stop
          </button>
        ) : null}
        <button type="submit" className="button button--primary" disabled={empty || sending}>
          Send
        </button>
      </div>
    </form>
  );
}
