import { ErrorCode, isSilasError } from '../../src-shared/errors.js';
import { ControlSocketAsker } from '../control/socket-asker.js';
import { describeSessionBus, type SessionBus } from '../keys/session-bus.js';
import { answerStartFailure } from '../mcp/proxy/start-failure.js';
import type { ProxyExit, ProxyOptions } from '../mcp/proxy/proxy.js';

/*
 * What `silas proxy` does when it cannot open the ledger (most often: the OS keyring is not
 * reachable from the environment its MCP client gave it). It cannot record anything itself, so
 * it reports the failure to a running runtime over the control socket (ask credential) for the
 * Servers page, and answers its client's `initialize` with what failed and what to fix instead
 * of exiting into the client's bare "Connection closed" (docs/mcp-proxy.md "Starting under any client").
 */

/** How long the report may wait for the runtime: the client is waiting for its `initialize` answer. */
const REPORT_TIMEOUT_MS = 5000;
const MAX_TEXT = 2000;

export interface ProxyStartFailure {
  home: string;
  error: unknown;
  /** The session bus the process entry found (Linux); undefined elsewhere. */
  sessionBus?: SessionBus;
  options: Pick<ProxyOptions, 'server' | 'client' | 'input' | 'writeClient' | 'log' | 'stopSignal'>;
}

/** Reason and fix of the failure, as the keyring's errors put them ("… To fix: …"); a keyring failure also names the session bus. */
function splitFailure(error: unknown, sessionBus: SessionBus | undefined): { reason: string; fix: string } {
  const message = error instanceof Error ? error.message : String(error);
  const [reason, fix] = message.split(/\.? To fix: /);
  const keyring = isSilasError(error) && error.code === ErrorCode.Keyring;
  const bus = keyring && sessionBus ? ` (${describeSessionBus(sessionBus)})` : '';
  const envFix =
    keyring && sessionBus?.source !== 'environment'
      ? '; or, when the keyring runs in a session this client does not pass on, put that session\'s DBUS_SESSION_BUS_ADDRESS in this server\'s "env" in the client configuration (`silas clients wrap` run in that session writes it)'
      : '';
  return { reason: `${reason!.replace(/\.$/, '')}${bus}`.slice(0, MAX_TEXT), fix: `${(fix ?? 'run `silas doctor` to see what is missing').replace(/\.$/, '')}${envFix}`.slice(0, MAX_TEXT) };
}

/** Reports the failure where the runtime shows it, then answers the client until it closes. Exit code 1. */
export async function failProxyStart(failure: ProxyStartFailure): Promise<ProxyExit> {
  const { options, home } = failure;
  const { reason, fix } = splitFailure(failure.error, failure.sessionBus);
  const asker = new ControlSocketAsker(home);
  let report: Awaited<ReturnType<ControlSocketAsker['reportStartFailure']>>;
  try {
    report = await asker.reportStartFailure({ server: options.server.slice(0, 200), client: options.client ?? null, reason, fix }, REPORT_TIMEOUT_MS);
  } finally {
    asker.close();
  }
  const where = report.recorded
    ? 'This was recorded on the Servers page of Silas.'
    : `It could not be recorded: ${report.why.replace(/\.$/, '')}; this message and the proxy's stderr are all there is.`;
  const message = `silas proxy could not start "${options.server}": ${reason}. To fix: ${fix}. ${where}`;
  options.log(message);
  await answerStartFailure({ input: options.input, writeClient: options.writeClient, message, ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}) });
  return { code: 1, reason: `could not start: ${reason}` };
}
