import { useId, useState, type FormEvent } from 'react';
import type { ClientServerView } from '../../../../src-shared/schemas/clients.js';
import type { WrapFlow as WrapFlowState } from '../../../store/clients-slice.js';
import { messageLines } from '../clients-format.js';
import { SandboxProfiles } from './SandboxProfiles.js';
import { FileDiff } from '../FileDiff/FileDiff.js';

export interface WrapFlowProps {
  label: string;
  file: string;
  /** The client's server entries: the wrappable ones can be chosen, the others are shown with why not. */
  servers: readonly ClientServerView[];
  flow: WrapFlowState;
  /** Plan the wrap of `servers` (the checked names, never empty) under `policy`. */
  onPreview(policy: string, servers: string[]): void;
  /** Apply the plan shown, which was made for `servers` (`clients.wrap` must send the same names). */
  onApply(servers: string[]): void;
  onCancel(): void;
}

/** An ordinary stdio entry not yet behind the proxy: the only kind `clients.wrap` changes. */
const wrappable = (server: ClientServerView) => server.transport === 'stdio' && !server.wrapped && server.reason === null;

const sameNames = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((name, i) => name === b[i]);

/** Why an entry cannot be chosen, in words; null for a wrappable one. */
function notChoosable(server: ClientServerView): string | null {
  if (server.wrapped) return 'already wrapped';
  if (wrappable(server)) return null;
  return `not wrappable: ${server.reason ?? 'not a stdio server'}`;
}

function ServerChoice({ server, checked, disabled, onToggle }: { server: ClientServerView; checked: boolean; disabled: boolean; onToggle(): void }) {
  const noteId = useId();
  const note = notChoosable(server);
  return (
    <li className={note === null ? 'wrap-flow__server' : 'wrap-flow__server wrap-flow__server--off'}>
      <label>
        <input
          type="checkbox"
          name="server"
          value={server.name}
          checked={note === null && checked}
          disabled={note !== null || disabled}
          aria-describedby={note === null ? undefined : noteId}
          onChange={onToggle}
        />{' '}
        <code>{server.name}</code>
      </label>
      {note === null ? null : (
        <>
          {' — '}
          <span id={noteId} className="wrap-flow__consequence">
            {note}
          </span>
        </>
      )}
    </li>
  );
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
export function WrapFlow({ label, file, servers, flow, onPreview, onApply, onCancel }: WrapFlowProps) {
  const [policy, setPolicy] = useState(flow.requestedPolicy ?? '');
  // What the person unchecked: every wrappable server starts checked, and so does one that shows up later.
  const [unchecked, setUnchecked] = useState<ReadonlySet<string>>(() => new Set());
  const candidates = servers.filter(wrappable).map((s) => s.name);
  const selected = candidates.filter((name) => !unchecked.has(name));
  // The selection the last preview was asked for (a preview open on arrival was made for all of them).
  const [previewed, setPreviewed] = useState<string[]>(selected);
  const inputId = useId();
  const hintId = useId();
  const noneId = useId();
  const errorId = useId();
  const applyId = useId();
  const cancelId = useId();
  const busy = flow.phase === 'previewing' || flow.phase === 'applying';
  const none = selected.length === 0;
  // A preview belongs to the policy and the servers it was made for; other ones need another preview.
  const plan = flow.plan && flow.requestedPolicy === policy && sameNames(previewed, selected) ? flow.plan : null;
  const inputError = flow.error !== null && plan === null;
  const profiles = plan?.sandboxProfiles ?? [];
  const editedPolicies = profiles.filter((p) => p.diff !== '').map((p) => p.file);

  const preview = (names: string[]) => {
    setPreviewed(names);
    onPreview(policy, names);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!none) preview(selected);
  };

  const toggle = (name: string) => {
    const next = new Set(unchecked);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setUnchecked(next);
    // A preview on screen follows the selection: the diff and Apply are always about the checked servers.
    const names = candidates.filter((n) => !next.has(n));
    if (names.length > 0 && flow.phase === 'previewed' && flow.requestedPolicy === policy) preview(names);
  };

  return (
    <div role="group" aria-label={`Wrap servers of ${label}`} className="wrap-flow">
      <fieldset className="wrap-flow__servers" aria-describedby={none ? noneId : undefined}>
        <legend>Choose the servers to wrap</legend>
        <ul className="wrap-flow__list">
          {servers.map((server) => (
            <ServerChoice key={server.name} server={server} checked={!unchecked.has(server.name)} disabled={busy} onToggle={() => toggle(server.name)} />
          ))}
        </ul>
        {none ? (
          <p id={noneId} className="wrap-flow__hint">
            Pick at least one server to wrap.
          </p>
        ) : null}
      </fieldset>
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
          The full path of the AgentPolicy the chosen servers of {label} will run under.
        </p>
        {inputError ? <RuntimeError id={errorId} message={flow.error!} /> : null}
        <div className="wrap-flow__buttons">
          <button type="submit" className="button" disabled={busy || none} aria-describedby={none ? noneId : undefined}>
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
          {plan.diff ? <FileDiff file={plan.file} diff={plan.diff} /> : null}
          <SandboxProfiles profiles={profiles} />
          {plan.wrap.length === 0 ? (
            <p className="wrap-flow__nothing">Nothing to wrap in {file}; nothing would change.</p>
          ) : (
            <div className="wrap-flow__buttons">
              <button type="button" className="button button--warn" disabled={busy} aria-describedby={applyId} onClick={() => onApply(previewed)}>
                Apply
              </button>
              <span id={applyId} className="wrap-flow__consequence">
                Rewrites {plan.file}; a backup is kept; Unwrap restores it byte for byte
                {editedPolicies.length > 0 ? `. Adds the sandbox profiles to ${editedPolicies.join(', ')}, which Unwrap leaves in place` : null}
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
