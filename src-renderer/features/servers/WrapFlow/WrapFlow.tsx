import { useId, useState, type FormEvent } from 'react';
import type { WrapFlow as WrapFlowState } from '../../../store/clients-slice.js';
import { messageLines } from '../clients-format.js';

export interface WrapFlowProps {
  label: string;
  file: string;
  flow: WrapFlowState;
  onPreview(policy: string): void;
  onApply(): void;
  onCancel(): void;
}

function RuntimeError({ id, message }: { id: string; message: string }) {
  const { headline, details } = messageLines(message);
  return (
    <div id={id} role="alert" className="notice notice--error wrap-flow__error">
      <p>{headline}</p>
      {details.length > 0 ? (
        <ul>
          {details.map((line, i) => (
            <li key={i}>
              <code>{line}</code>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** "Wrap servers…": a policy file, a preview of the exact diff, then Apply (with its consequence) or Cancel. */
export function WrapFlow({ label, file, flow, onPreview, onApply, onCancel }: WrapFlowProps) {
  const [policy, setPolicy] = useState(flow.requestedPolicy ?? '');
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const applyId = useId();
  const cancelId = useId();
  const diffId = useId();
  const busy = flow.phase === 'previewing' || flow.phase === 'applying';
  // A preview belongs to the policy it was made for; another policy needs another preview.
  const plan = flow.plan && flow.requestedPolicy === policy ? flow.plan : null;
  const inputError = flow.error !== null && plan === null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onPreview(policy);
  };

  return (
    <div role="group" aria-label={`Wrap servers of ${label}`} className="wrap-flow">
      <form onSubmit={submit} noValidate className="wrap-flow__form">
        <label htmlFor={inputId}>Policy file</label>
        <input
          id={inputId}
          type="text"
          name="policy"
          required
          aria-required="true"
          autoComplete="off"
          spellCheck={false}
          placeholder="/home/you/policies/workstation.yaml"
          value={policy}
          disabled={busy}
          aria-invalid={inputError ? 'true' : undefined}
          aria-describedby={inputError ? `${errorId} ${hintId}` : hintId}
          onChange={(event) => setPolicy(event.target.value)}
        />
        <p id={hintId} className="wrap-flow__hint">
          The full path of the AgentPolicy every stdio server of {label} will run under.
        </p>
        {inputError ? <RuntimeError id={errorId} message={flow.error!} /> : null}
        <div className="wrap-flow__buttons">
          <button type="submit" className="button" disabled={busy}>
            Preview changes
          </button>
          <button type="button" className="button button--quiet" aria-describedby={cancelId} disabled={flow.phase === 'applying'} onClick={onCancel}>
            Cancel
          </button>
          <span id={cancelId} className="wrap-flow__consequence">
            Nothing is written
          </span>
        </div>
        {flow.phase === 'previewing' ? <p className="wrap-flow__busy">Preparing the preview…</p> : null}
      </form>
      {plan ? (
        <div className="wrap-flow__preview">
          <h4>Changes to {plan.file}</h4>
          {plan.wrap.length > 0 ? (
            <ul className="wrap-flow__list" aria-label="Servers to wrap">
              {plan.wrap.map((w) => (
                <li key={w.name}>
                  <strong>{w.name}</strong> will run through <code>silas proxy</code> with policy <code>{w.policy}</code>
                </li>
              ))}
            </ul>
          ) : null}
          {plan.skipped.length > 0 ? (
            <ul className="wrap-flow__list" aria-label="Servers left as they are">
              {plan.skipped.map((s) => (
                <li key={s.name}>
                  <strong>{s.name}</strong> stays as it is: {s.reason}
                </li>
              ))}
            </ul>
          ) : null}
          {plan.diff ? (
            <>
              <p id={diffId} className="wrap-flow__diff-title">
                Diff of {plan.file}
              </p>
              <pre className="wrap-flow__diff" aria-labelledby={diffId} tabIndex={0}>
                <code>{plan.diff}</code>
              </pre>
            </>
          ) : null}
          {plan.wrap.length === 0 ? (
            <p className="wrap-flow__nothing">Nothing to wrap in {file}; nothing would change.</p>
          ) : (
            <div className="wrap-flow__buttons">
              <button type="button" className="button button--warn" disabled={busy} aria-describedby={applyId} onClick={onApply}>
                Apply
              </button>
              <span id={applyId} className="wrap-flow__consequence">
                Rewrites {plan.file}; a backup is kept; Unwrap restores it byte for byte
              </span>
            </div>
          )}
          {flow.phase === 'applying' ? <p className="wrap-flow__busy">Writing…</p> : null}
          {flow.error !== null ? <RuntimeError id={errorId} message={flow.error} /> : null}
        </div>
      ) : null}
    </div>
  );
}
