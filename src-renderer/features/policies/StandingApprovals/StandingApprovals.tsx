import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { StandingApprovalItem } from '../StandingApprovalItem/StandingApprovalItem.js';
import { serverPolicyPath, standingArgs } from '../policy-form-format.js';

function EmptyState({ loading }: { loading: boolean }) {
  if (loading) return <p className="standing-empty">Loading standing approvals…</p>;
  return (
    <div className="standing-empty">
      <p className="standing-empty__title">No standing approvals</p>
      <p>
        When you choose <strong>Always allow</strong> on a Review card, Silas signs a standing approval for exactly that call: the same tool
        with the same arguments on the same server. Identical calls then run without asking, and each standing approval is listed here
        until you revoke it.
      </p>
    </div>
  );
}

/** The standing "always allow" approvals (a per-server overlay on each proxy's policy), each revocable. */
export function StandingApprovals() {
  const headingId = useId();
  const items = useCockpit((s) => s.standing.items);
  const status = useCockpit((s) => s.standing.status);
  const error = useCockpit((s) => s.standing.error);
  const revoking = useCockpit((s) => s.standing.revoking);
  const revokeError = useCockpit((s) => s.standing.revokeError);
  const clients = useCockpit((s) => s.clients.clients);
  const servers = useCockpit((s) => s.servers.servers);
  const policies = useCockpit((s) => s.policyEditor.policies);
  const { revokeStanding, makeRuleFromStanding } = useCockpitActions();
  // A failed revocation whose approval is no longer listed (revoked elsewhere) is reported above the list.
  const orphanError = revokeError && !items.some((item) => item.id === revokeError.id) ? revokeError : null;

  return (
    <section className="standing-section" aria-labelledby={headingId}>
      <h2 id={headingId}>Standing approvals</h2>
      <p className="standing-section__lead">
        Calls you chose to always allow. Each covers one tool with exactly the arguments shown, on one server, and is signed with your owner
        key.
      </p>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the standing approvals: {error}
        </p>
      ) : null}
      {orphanError ? (
        <p role="alert" className="notice notice--error">
          Could not revoke: {orphanError.message}
        </p>
      ) : null}
      {items.length === 0 ? (
        <EmptyState loading={status === 'loading' || status === 'idle'} />
      ) : (
        <ul className="standing-list" aria-labelledby={headingId}>
          {items.map((item) => {
            const policyPath = serverPolicyPath(item.server, clients, servers, policies);
            const args = standingArgs(item.argsDisplay);
            return (
              <StandingApprovalItem
                key={item.id}
                item={item}
                busy={revoking !== null}
                revoking={revoking === item.id}
                error={revokeError?.id === item.id ? revokeError.message : null}
                onRevoke={() => revokeStanding(item.id)}
                policyPath={policyPath}
                {...(policyPath !== null && args !== null ? { onMakeRule: () => makeRuleFromStanding(policyPath, item.tool, args) } : {})}
              />
            );
          })}
        </ul>
      )}
    </section>
  );
}
