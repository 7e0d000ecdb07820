import { useId } from 'react';
import type { GovernedServer } from '../../../../src-shared/schemas/servers.js';
import type { ReviewState } from '../../../store/review-slice.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { PinnedTools } from '../PinnedTools/PinnedTools.js';
import { PolicyErrorAlert } from '../PolicyErrorAlert/PolicyErrorAlert.js';
import { RecentDecisions } from '../RecentDecisions/RecentDecisions.js';
import { ServerSandbox } from '../ServerSandbox/ServerSandbox.js';
import { StartFailureAlert } from '../StartFailureAlert/StartFailureAlert.js';
import { shortHash } from '../servers-format.js';

export interface ServerSectionProps {
  server: GovernedServer;
  deciding: ReviewState['deciding'];
  decideError: ReviewState['decideError'];
  onApprove(decisionId: string): void;
}

/** One governed server, a region named by the server: a reported start failure and a rejected policy edit first, then its start, policy, sandbox, pinned tools and recent decisions. */
export function ServerSection({ server, deciding, decideError, onApprove }: ServerSectionProps) {
  const headingId = useId();
  const pending = server.pins.filter((pin) => pin.pendingHash).length;
  const unsandboxed = server.sandbox?.backend === 'none';
  return (
    <section className={pending > 0 || server.policyError || server.startFailure || unsandboxed ? 'server server--attention' : 'server'} aria-labelledby={headingId}>
      <header className="server__header">
        <h2 id={headingId}>{server.name}</h2>
        {pending > 0 ? (
          <span className="server__attention">
            {pending} changed {pending === 1 ? 'tool waits' : 'tools wait'} for you
          </span>
        ) : null}
      </header>
      {server.startFailure ? <StartFailureAlert failure={server.startFailure} /> : null}
      {server.policyError ? <PolicyErrorAlert error={server.policyError} /> : null}
      {server.unsignedAllowed ? (
        <p className="notice notice--warn">
          <strong>Unsigned policies allowed</strong> — this proxy was started with <code>--allow-unsigned</code>: it enforces its policy file whether or not you signed it (for development only).
        </p>
      ) : null}
      <dl className="server__facts">
        <div>
          <dt>Last started</dt>
          <dd>{server.lastStartedAt ? <time dateTime={server.lastStartedAt}>{formatLocalTime(server.lastStartedAt)}</time> : 'Not recorded'}</dd>
        </div>
        <div>
          <dt>Policy</dt>
          <dd>
            {server.policyName ? (
              <>
                <strong>{server.policyName}</strong>{' '}
                <code className="hash" title={server.policyHash ?? undefined}>
                  {shortHash(server.policyHash)}
                </code>
              </>
            ) : (
              'Not recorded'
            )}
          </dd>
        </div>
      </dl>
      <ServerSandbox sandbox={server.sandbox} denials={server.sandboxDenials} />
      <PinnedTools pins={server.pins} deciding={deciding} decideError={decideError} onApprove={onApprove} />
      <RecentDecisions entries={server.recentDecisions} />
    </section>
  );
}
