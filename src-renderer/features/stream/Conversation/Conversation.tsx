import { useEffect, useRef } from 'react';
import type { StreamMessage } from '../../../../src-shared/schemas/stream.js';
import { useCockpit } from '../../../app/cockpit-context.js';
import { messageTime, senderLabel } from '../stream-format.js';

function MessageItem({ message }: { message: StreamMessage }) {
  return (
    <li className={`message message--${message.sender}`}>
      <p className="message__meta">
        <span className="message__sender">{senderLabel(message.sender)}</span>
        {message.taint === 'external' ? <span className="message__taint">includes outside content</span> : null}
        <time dateTime={message.timestamp}>{messageTime(message.timestamp)}</time>
      </p>
      <div className="message__text">{message.text}</div>
    </li>
  );
}

/** Silas's answer while it is written: provisional, and replaced by the final message (or dropped). */
function DraftItem({ text }: { text: string }) {
  return (
    <li className="message message--silas message--draft" aria-busy="true">
      <p className="message__meta">
        <span className="message__sender">Silas</span>
        <span className="message__state">writing…</span>
      </p>
      <div className="message__text">{text}</div>
    </li>
  );
}

function ThinkingItem() {
  return (
    <li className="message message--silas message--draft">
      <p className="message__meta">
        <span className="message__sender">Silas</span>
        <span className="message__state">working on it…</span>
      </p>
    </li>
  );
}

/**
 * The conversation as a live log: new messages are announced, the draft is not announced token
 * by token (the log is busy while it streams), and the view follows the newest line.
 */
export function Conversation() {
  const messages = useCockpit((s) => s.stream.messages);
  const draft = useCockpit((s) => s.stream.draft);
  const busy = useCockpit((s) => s.stream.busy);
  const log = useRef<HTMLDivElement>(null);
  const empty = messages.length === 0 && draft === null && !busy;

  useEffect(() => {
    const element = log.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [messages, draft]);

  return (
    <div ref={log} role="log" aria-label="Conversation" aria-busy={draft !== null ? 'true' : undefined} className="conversation" tabIndex={0}>
      {empty ? (
        <p className="conversation__empty">Nothing said yet. Ask Silas something, or tell it what you want done; anything it plans to run waits for your signature in Review.</p>
      ) : (
        <ol className="conversation__list">
          {messages.map((message) => (
            <MessageItem key={message.id} message={message} />
          ))}
          {draft !== null ? <DraftItem text={draft.text} /> : busy ? <ThinkingItem /> : null}
        </ol>
      )}
    </div>
  );
}
