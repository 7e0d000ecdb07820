import type { GovernedServer } from '../../../../src-shared/schemas/servers.js';
import { formatLocalTime } from '../../activity/audit-format.js';

/** What the card shows of a proxy's report at most: the runtime caps it too, this keeps the card short. */
const MAX_SHOWN = 600;

function capped(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

/**
 * A proxy could not start this server (most often: the OS keyring was out of its reach) and said
 * why over the control socket. The text is the proxy's claim, made with the ask credential only:
 * shown as plain text, capped, and labelled as reported (docs/mcp-proxy.md "Starting under any client").
 */
export function StartFailureAlert({ failure }: { failure: NonNullable<GovernedServer['startFailure']> }) {
  return (
    <div role="alert" className="policy-error start-failure">
      <p className="policy-error__title">
        <strong>Could not start</strong>{' '}
        <span className="policy-error__since">
          reported by the proxy{failure.client ? ` started by ${failure.client}` : ''} at <time dateTime={failure.at}>{formatLocalTime(failure.at)}</time>
        </span>
      </p>
      <p>
        <span className="start-failure__label">Why: </span>
        <span className="start-failure__text">{capped(failure.reason)}</span>
      </p>
      {failure.fix ? (
        <p>
          <span className="start-failure__label">Fix: </span>
          <span className="start-failure__text">{capped(failure.fix)}</span>
        </p>
      ) : null}
      <p className="policy-error__hint">The agent client was told the same. This notice goes away when the server next starts.</p>
    </div>
  );
}
