import { useCockpit } from '../../app/cockpit-context.js';
import type { ConnectionState } from '../../lib/transport.js';

const CONNECTION_LABELS: Record<ConnectionState, string> = {
  connected: 'Connected',
  connecting: 'Connecting…',
  reconnecting: 'Reconnecting…',
  unauthorised: 'Unauthorised — token rejected',
  'no-token': 'No token',
};

/** Always visible in the header: a governance tool must never look live when it is not. */
export function ConnectionStatus() {
  const state = useCockpit((s) => s.connection.state);
  return (
    <div role="status" aria-label="Connection" className={`connection connection--${state}`}>
      <span className="connection__dot" aria-hidden="true" />
      {CONNECTION_LABELS[state]}
    </div>
  );
}
