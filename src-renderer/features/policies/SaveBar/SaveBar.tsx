import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { saveBlockReason } from '../../../store/policy-editor-state.js';
import { CONFLICT_TEXT } from '../policy-editor-format.js';

/** "Save and sign", why it is disabled, and what became of the last save (saved, conflict, failure). */
export function SaveBar() {
  const reasonId = useId();
  const reason = useCockpit((s) => saveBlockReason(s.policyEditor));
  const phase = useCockpit((s) => s.policyEditor.save.phase);
  const message = useCockpit((s) => s.policyEditor.save.message);
  const setAside = useCockpit((s) => s.policyEditor.open?.setAside != null);
  const { savePolicy, reloadPolicy, bringBackDraft } = useCockpitActions();

  return (
    <div className="policy-save">
      <div className="policy-save__row">
        <button type="button" className="button button--primary" disabled={reason !== null} aria-describedby={reason !== null ? reasonId : undefined} onClick={savePolicy}>
          Save and sign
        </button>
        {reason !== null ? (
          <span id={reasonId} className="policy-save__reason">
            {reason}
          </span>
        ) : null}
      </div>
      <p role="status" className="policy-save__status">
        {phase === 'saved' && message ? message : ''}
      </p>
      {phase === 'conflict' ? (
        <div role="alert" className="notice notice--warn policy-save__conflict">
          <span title={message ?? undefined}>{CONFLICT_TEXT}</span>{' '}
          <button type="button" className="button" onClick={reloadPolicy}>
            Reload
          </button>
        </div>
      ) : null}
      {phase === 'error' && message ? (
        <p role="alert" className="notice notice--error">
          Could not save: {message}
        </p>
      ) : null}
      {setAside ? (
        <p className="notice notice--warn policy-save__aside">
          Reloaded from disk; your draft was set aside.{' '}
          <button type="button" className="button" onClick={bringBackDraft}>
            Bring back my draft
          </button>
        </p>
      ) : null}
    </div>
  );
}
