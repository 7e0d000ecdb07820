import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { chainBadgeText, formatLocalTime } from '../audit-format.js';

/**
 * The verdict on the hash chain (DESIGN invariant 3) and the way to ask for a fresh one.
 * A failed verification call is shown as such, never as "intact".
 */
export function ChainBadge() {
  const status = useCockpit((s) => s.chain.status);
  const entries = useCockpit((s) => s.chain.entries);
  const firstInvalid = useCockpit((s) => s.chain.firstInvalid);
  const verifiedAt = useCockpit((s) => s.chain.verifiedAt);
  const error = useCockpit((s) => s.chain.error);
  const connected = useCockpit((s) => s.connection.state === 'connected');
  const { verifyChain } = useCockpitActions();

  return (
    <div className="chain">
      <span
        role="status"
        aria-label="Audit chain"
        className={`chain-badge chain-badge--${status}`}
        title={verifiedAt ? `Verified ${formatLocalTime(verifiedAt)}` : undefined}
      >
        {chainBadgeText({ status, entries, firstInvalid })}
      </span>
      <button type="button" className="button" onClick={verifyChain} disabled={!connected || status === 'verifying'}>
        Re-verify chain
      </button>
      {error ? <span className="chain__error">Verification failed: {error}</span> : null}
    </div>
  );
}
