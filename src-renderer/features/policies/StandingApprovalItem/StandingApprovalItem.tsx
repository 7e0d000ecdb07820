import { useId, useState } from 'react';
import type { StandingApproval } from '../../../store/standing-slice.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { fileName } from '../policy-editor-format.js';
import { makeRuleName } from '../policy-form-format.js';
import { formatArgsDisplay, REVOKE_CONSEQUENCE, revokeName, shortFingerprint, standingName } from '../policies-format.js';

export interface StandingApprovalItemProps {
  item: StandingApproval;
  /** A revocation (of any standing approval) is on its way: every Revoke button waits. */
  busy: boolean;
  /** This one's revocation is on its way. */
  revoking: boolean;
  /** The runtime's message for a failed revocation of this one. */
  error: string | null;
  onRevoke(): void;
  /** The policy file the server's proxy runs under, which this approval extends; null when unknown. */
  policyPath: string | null;
  /** Turns this approval into an allow rule in that policy's draft; absent when it cannot be (no policy, arguments not an object). */
  onMakeRule?: () => void;
}

/** One standing "always allow": what it covers, when and with which key it was signed, and Revoke. */
export function StandingApprovalItem({ item, busy, revoking, error, onRevoke, policyPath, onMakeRule }: StandingApprovalItemProps) {
  const [argsOpen, setArgsOpen] = useState(false);
  const argsId = useId();
  const consequenceId = useId();
  const name = standingName(item);
  return (
    <li className="standing" aria-label={name}>
      <dl className="standing__facts">
        <div>
          <dt>Server</dt>
          <dd>{item.server}</dd>
        </div>
        <div>
          <dt>Tool</dt>
          <dd>
            <code>{item.tool}</code>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={item.createdAt}>{formatLocalTime(item.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Signed by key</dt>
          <dd>
            <code className="hash" title={item.keyFingerprint}>
              {shortFingerprint(item.keyFingerprint)}
            </code>
          </dd>
        </div>
      </dl>
      <div className="standing__args">
        <button type="button" className="button button--quiet" aria-expanded={argsOpen} aria-controls={argsId} onClick={() => setArgsOpen((open) => !open)}>
          <span className="standing__chevron" aria-hidden="true">
            ▸
          </span>{' '}
          Arguments
        </button>
        <div id={argsId}>
          {argsOpen ? (
            <pre className="standing__args-text" aria-label={`Arguments of ${name}`}>
              {formatArgsDisplay(item.argsDisplay)}
            </pre>
          ) : null}
        </div>
      </div>
      {policyPath !== null ? (
        <p className="standing__policy" title={policyPath}>
          Extends policy {fileName(policyPath)}
          {onMakeRule ? (
            <>
              {' '}
              <button type="button" className="button button--quiet" aria-label={makeRuleName(item)} onClick={onMakeRule}>
                Make a rule
              </button>
            </>
          ) : null}
        </p>
      ) : null}
      <div className="standing__action">
        <button type="button" className="button button--warn" disabled={busy} aria-label={revokeName(item)} aria-describedby={consequenceId} onClick={onRevoke}>
          Revoke
        </button>
        <span id={consequenceId} className="standing__consequence">
          {REVOKE_CONSEQUENCE}
        </span>
        {revoking ? <span className="standing__sending">Revoking…</span> : null}
      </div>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not revoke: {error}
        </p>
      ) : null}
    </li>
  );
}
