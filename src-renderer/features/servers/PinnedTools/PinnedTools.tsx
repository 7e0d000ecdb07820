import { Fragment, useId } from 'react';
import type { GovernedServer } from '../../../../src-shared/schemas/servers.js';
import type { ReviewState } from '../../../store/review-slice.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { shortHash } from '../servers-format.js';

type Pin = GovernedServer['pins'][number];

export interface PinnedToolsProps {
  pins: readonly Pin[];
  /** The Review card whose decision is on its way: every approve button waits for it (one decision at a time). */
  deciding: ReviewState['deciding'];
  /** The last failed decision; shown under the change whose card it was. */
  decideError: ReviewState['decideError'];
  /** Accepts the change decided by Review card `decisionId`. */
  onApprove(decisionId: string): void;
}

function Hash({ value }: { value: string | null }) {
  return (
    <code className="hash" title={value ?? undefined}>
      {shortHash(value)}
    </code>
  );
}

type PendingChangeRowProps = Omit<PinnedToolsProps, 'pins'> & { pin: Pin & { pendingHash: string } };

/**
 * A changed tool, or one held at first sight (no approved hash: the detectors flagged its
 * definition, whose findings its Review card shows); without its Review card yet (`decisionId`
 * null) the button waits for the card.
 */
function PendingChangeRow({ pin, deciding, decideError, onApprove }: PendingChangeRowProps) {
  const consequenceId = useId();
  const id = pin.decisionId;
  const sending = id !== null && deciding === id;
  const error = id !== null && decideError?.id === id ? decideError.message : null;
  const held = pin.approvedHash === null;
  return (
    <tr className="pin-pending">
      <td colSpan={3}>
        <div role="group" aria-label={held ? `Held definition of ${pin.tool}` : `Changed definition of ${pin.tool}`} className="pin-pending__body">
          <p className="pin-pending__title">
            <strong>
              {held
                ? 'Held at first sight: the definition looks poisoned — hidden from the agent and refused until you approve (see its card in Review)'
                : 'Definition changed — hidden from the agent and refused until you approve'}
            </strong>
          </p>
          <p className="pin-pending__hashes">
            {held ? null : (
              <>
                Approved <Hash value={pin.approvedHash} /> →{' '}
              </>
            )}
            announced <Hash value={pin.pendingHash} />
            {pin.pendingSince ? (
              <>
                {' '}
                since <time dateTime={pin.pendingSince}>{formatLocalTime(pin.pendingSince)}</time>
              </>
            ) : null}
          </p>
          <div className="pin-pending__action">
            <button type="button" className="button button--warn" disabled={deciding !== null || id === null} aria-describedby={consequenceId} onClick={() => id !== null && onApprove(id)}>
              {held ? 'Approve definition of' : 'Approve new definition of'} {pin.tool}
            </button>
            <span id={consequenceId} className="pin-pending__consequence">
              {held ? 'The agent can see and call the tool' : 'The agent can see and call the changed tool again'}
            </span>
          </div>
          {sending ? <p className="pin-pending__sending">Approving…</p> : null}
          {error ? (
            <p role="alert" className="notice notice--error">
              Could not approve the new definition: {error}
            </p>
          ) : null}
        </div>
      </td>
    </tr>
  );
}

/** Every tool the server has shown, with the hash the person trusts; a changed definition is a warning row right under its tool. */
export function PinnedTools({ pins, deciding, decideError, onApprove }: PinnedToolsProps) {
  const headingId = useId();
  return (
    <div className="server-block">
      <h3 id={headingId}>Pinned tools</h3>
      {pins.length === 0 ? (
        <p className="server-block__empty">No tools pinned yet: the first tools/list through the proxy pins every tool it shows.</p>
      ) : (
        <table className="server-table" aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Approved hash</th>
              <th scope="col">First seen</th>
            </tr>
          </thead>
          <tbody>
            {pins.map((pin) => (
              <Fragment key={pin.tool}>
                <tr className={pin.pendingHash ? 'pin-row pin-row--changed' : 'pin-row'}>
                  <td>
                    <code>{pin.tool}</code>
                  </td>
                  <td>
                    {pin.approvedHash === null ? <span className="pin-untrusted">None yet: held at first sight</span> : <Hash value={pin.approvedHash} />}
                    {pin.sealed || pin.approvedHash === null ? null : (
                      <span className="pin-untrusted" role="status">
                        {' '}
                        Not trusted: this pin was changed outside Silas; the tool stays blocked until you approve its definition.
                      </span>
                    )}
                  </td>
                  <td>
                    <time dateTime={pin.firstSeenAt}>{formatLocalTime(pin.firstSeenAt)}</time>
                  </td>
                </tr>
                {pin.pendingHash ? (
                  <PendingChangeRow pin={{ ...pin, pendingHash: pin.pendingHash }} deciding={deciding} decideError={decideError} onApprove={onApprove} />
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
