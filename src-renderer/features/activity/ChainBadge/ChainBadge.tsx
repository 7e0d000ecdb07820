import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { chainBadgeText, formatLocalTime } from '../audit-format.js';
import { chainProgressText, chainVerifiedTitle } from './chain-progress-format.js';

/**
 * The verdict on the hash chain (DESIGN invariant 3) and the way to ask for a fresh one.
 * A failed verification call is shown as such, never as "intact". The runtime verifies in a
 * worker thread: the last verdict shows at once, with the progress of a run beneath it.
 */
export function ChainBadge() {
  const status = useCockpit((s) => s.chain.status);
  const entries = useCockpit((s) => s.chain.entries);
  const firstInvalid = useCockpit((s) => s.chain.firstInvalid);
  const verifiedAt = useCockpit((s) => s.chain.verifiedAt);
  const mode = useCockpit((s) => s.chain.mode);
  const progress = useCockpit((s) => s.chain.progress);
  const error = useCockpit((s) => s.chain.error);
  const connected = useCockpit((s) => s.connection.state === 'connected');
  const { verifyChain, cancelVerify } = useCockpitActions();
  const running = status === 'verifying' || progress !== null;

  return (
    <div className="chain">
      <span
        role="status"
        aria-label="Audit chain"
        className={`chain-badge chain-badge--${status}`}
        title={verifiedAt ? chainVerifiedTitle(verifiedAt, mode, formatLocalTime) : undefined}
      >
        {chainBadgeText({ status, entries, firstInvalid })}
      </span>
      {progress ? (
        <span className="chain__progress" aria-label="Verification progress">
          {chainProgressText(progress)}
        </span>
      ) : null}
      <button
        type="button"
        className="button"
        title="Checks every entry and signed checkpoint from the first"
        onClick={() => verifyChain('full')}
        disabled={!connected || running}
      >
        Re-verify chain
      </button>
      {running ? (
        <button type="button" className="button" onClick={cancelVerify} disabled={!connected}>
          Cancel verification
        </button>
      ) : null}
      {error ? <span className="chain__error">Verification failed: {error}</span> : null}
    </div>
  );
}
