import { useId, useState, type FormEvent } from 'react';
import { parseArguments } from '../policy-editor-format.js';

export interface TryFormProps {
  /** A bench run is on its way. */
  busy: boolean;
  onTry(tool: string, args: Record<string, unknown>): void;
}

/** One tools/call typed by hand, decided by the draft and by the policy in force. */
export function TryForm({ busy, onTry }: TryFormProps) {
  const toolId = useId();
  const argsId = useId();
  const errorId = useId();
  const [tool, setTool] = useState('');
  const [args, setArgs] = useState('{}');
  const [error, setError] = useState<string | null>(null);

  function submit(event: FormEvent): void {
    event.preventDefault();
    const parsed = parseArguments(args);
    if (!parsed.ok) {
      setError(parsed.message);
      return;
    }
    setError(null);
    onTry(tool.trim(), parsed.args);
  }

  return (
    <form className="bench-form" aria-label="Try a call" onSubmit={submit}>
      <div className="bench-form__field">
        <label htmlFor={toolId}>Tool</label>
        <input id={toolId} className="bench-form__input" value={tool} onChange={(e) => setTool(e.target.value)} placeholder="write_file" spellCheck={false} autoComplete="off" />
      </div>
      <div className="bench-form__field bench-form__field--wide">
        <label htmlFor={argsId}>Arguments</label>
        <textarea
          id={argsId}
          className="bench-form__input bench-form__args"
          value={args}
          rows={3}
          spellCheck={false}
          aria-invalid={error !== null}
          aria-describedby={error !== null ? errorId : undefined}
          onChange={(e) => {
            setArgs(e.target.value);
            setError(null);
          }}
        />
        {error !== null ? (
          <span id={errorId} className="bench-form__error">
            {error}
          </span>
        ) : null}
      </div>
      <button type="submit" className="button" disabled={busy || tool.trim() === ''}>
        Try
      </button>
    </form>
  );
}
