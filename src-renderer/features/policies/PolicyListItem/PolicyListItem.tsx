import { useId } from 'react';
import type { PolicyFileStatus } from '../../../store/policy-editor-state.js';
import {
  ADOPT_CONSEQUENCE,
  CHANGED_OUTSIDE,
  fileName,
  NO_VERSION_TO_REVERT,
  notInForceText,
  openName,
  REVERT_CONSEQUENCE,
  signatureLabel,
  signatureTone,
  versionsText,
} from '../policy-editor-format.js';

export interface PolicyListItemProps {
  policy: PolicyFileStatus;
  /** This policy is the one in the editor. */
  open: boolean;
  /** An adopt or revert (of any policy) is on its way: those buttons wait. */
  busy: boolean;
  /** This policy's adopt or revert on its way. */
  acting: 'adopt' | 'revert' | null;
  /** The outcome of this policy's last adopt or revert. */
  message: { kind: 'adopt' | 'revert'; text: string; error: boolean } | null;
  onOpen(): void;
  onAdopt(): void;
  onRevert(): void;
}

/** One policy of this installation: its name and path, signature, outside edits, and what can be done about them. */
export function PolicyListItem({ policy, open, busy, acting, message, onOpen, onAdopt, onRevert }: PolicyListItemProps) {
  const name = fileName(policy.path);
  const adoptId = useId();
  const revertId = useId();
  const tone = signatureTone(policy.signature);
  const notInForce = notInForceText(policy);
  return (
    <li className={`policy-file${open ? ' policy-file--open' : ''}`} aria-label={name}>
      <div className="policy-file__head">
        <strong className="policy-file__name">{name}</strong>
        <code className="policy-file__path">{policy.path}</code>
      </div>
      <div className="policy-file__badges">
        <span className={`policy-badge policy-badge--${tone}`}>{signatureLabel(policy.signature)}</span>
        {policy.modifiedOutside ? <span className="policy-badge policy-badge--warn">{CHANGED_OUTSIDE}</span> : null}
        {!policy.exists ? <span className="policy-badge policy-badge--bad">Missing</span> : policy.loads ? null : <span className="policy-badge policy-badge--bad">Does not load</span>}
        <span className="policy-file__versions">{versionsText(policy.versions)}</span>
      </div>
      <div className="policy-file__actions">
        <button type="button" className="button" aria-label={openName(policy.path)} disabled={open} onClick={onOpen}>
          {open ? 'In the editor' : 'Open'}
        </button>
        {policy.modifiedOutside || notInForce !== null ? (
          <>
            <button type="button" className="button" aria-label={`Adopt ${name}`} aria-describedby={adoptId} disabled={busy || !policy.exists} onClick={onAdopt}>
              Adopt
            </button>
            <span id={adoptId} className="policy-file__consequence">
              {ADOPT_CONSEQUENCE}
            </span>
            <button type="button" className="button button--warn" aria-label={`Revert ${name}`} aria-describedby={revertId} disabled={busy || policy.versions === 0} onClick={onRevert}>
              Revert
            </button>
            <span id={revertId} className="policy-file__consequence">
              {policy.versions === 0 ? NO_VERSION_TO_REVERT : REVERT_CONSEQUENCE}
            </span>
          </>
        ) : null}
        {acting ? <span className="policy-file__sending">{acting === 'adopt' ? 'Adopting…' : 'Reverting…'}</span> : null}
      </div>
      {notInForce !== null ? <p className="notice notice--warn">{notInForce}</p> : null}
      {policy.problem ? <p className="notice notice--error">{policy.problem}</p> : null}
      {message ? (
        <p role={message.error ? 'alert' : 'status'} className={message.error ? 'notice notice--error' : 'policy-file__done'}>
          {message.error ? `Could not ${message.kind} it: ` : ''}
          {message.text}
        </p>
      ) : null}
    </li>
  );
}
