import { useCockpit } from '../../app/cockpit-context.js';

/**
 * Says what to do when the cockpit cannot show live data. Without this, a rejected or
 * missing token looks like an empty, healthy system. Never points at HOME/control.json: its
 * token is the ask credential, which the cockpit rightly refuses (docs/control-plane.md).
 */
export function ConnectionNotice() {
  const state = useCockpit((s) => s.connection.state);
  if (state === 'no-token') {
    return (
      <div role="alert" className="notice notice--error">
        <strong>No token.</strong> This cockpit needs the access token of a running Silas runtime. Run{' '}
        <code>silas open</code> in a terminal (it prints a fresh link; it needs your OS keyring), or open the URL{' '}
        <code>silas start</code> printed.
      </div>
    );
  }
  if (state === 'unauthorised') {
    return (
      <div role="alert" className="notice notice--error">
        <strong>Token rejected.</strong> The runtime did not accept this cockpit&apos;s token; it changes when the runtime
        restarts, and stops working when someone signs out other sessions. Run <code>silas open</code> in a terminal (it prints a fresh link; it needs your OS keyring), or open
        the URL <code>silas start</code> printed.
      </div>
    );
  }
  if (state === 'reconnecting') {
    return (
      <div className="notice notice--warn">
        Connection to the runtime lost. Reconnecting; what you see may be out of date until it is back.
      </div>
    );
  }
  return null;
}
