import { useId, useState, type FormEvent } from 'react';
import { MAX_REPLAY, parseLast } from '../policy-editor-format.js';

export interface ReplayFormProps {
  busy: boolean;
  onReplay(server: string, last: number): void;
}

/** The last N calls a server's proxy recorded, decided again by the draft and by the policy in force. */
export function ReplayForm({ busy, onReplay }: ReplayFormProps) {
  const serverId = useId();
  const lastId = useId();
  const [server, setServer] = useState('');
  const [last, setLast] = useState('100');
  const count = parseLast(last);

  function submit(event: FormEvent): void {
    event.preventDefault();
    if (count !== null && server.trim() !== '') onReplay(server.trim(), count);
  }

  return (
    <form className="bench-form" aria-label="Replay recorded calls" onSubmit={submit}>
      <div className="bench-form__field">
        <label htmlFor={serverId}>Server</label>
        <input id={serverId} className="bench-form__input" value={server} onChange={(e) => setServer(e.target.value)} placeholder="files" spellCheck={false} autoComplete="off" />
      </div>
      <div className="bench-form__field">
        <label htmlFor={lastId}>Last N</label>
        <input
          id={lastId}
          className="bench-form__input bench-form__number"
          type="number"
          min={1}
          max={MAX_REPLAY}
          value={last}
          aria-invalid={count === null}
          onChange={(e) => setLast(e.target.value)}
        />
      </div>
      <button type="submit" className="button" disabled={busy || count === null || server.trim() === ''}>
        Replay
      </button>
    </form>
  );
}
