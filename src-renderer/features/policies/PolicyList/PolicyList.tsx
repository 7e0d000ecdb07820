import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { PolicyListItem } from '../PolicyListItem/PolicyListItem.js';

/** The policies of this installation (what its wrapped servers run under, and HOME/policies), each openable in the editor. */
export function PolicyList() {
  const headingId = useId();
  const policies = useCockpit((s) => s.policyEditor.policies);
  const status = useCockpit((s) => s.policyEditor.listStatus);
  const error = useCockpit((s) => s.policyEditor.listError);
  const openPath = useCockpit((s) => s.policyEditor.open?.path ?? null);
  const fileAction = useCockpit((s) => s.policyEditor.fileAction);
  const fileMessage = useCockpit((s) => s.policyEditor.fileMessage);
  const { openPolicy, adoptPolicy, revertPolicy } = useCockpitActions();

  return (
    <section className="policy-files" aria-labelledby={headingId}>
      <h2 id={headingId}>Policy files</h2>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the policies: {error}
        </p>
      ) : null}
      {policies.length === 0 ? (
        <p className="policy-files__empty">
          {status === 'ready' || status === 'error'
            ? 'No policies yet. Wrap a server under a policy on the Servers page, or put one in the policies folder of your Silas home.'
            : 'Loading policies…'}
        </p>
      ) : (
        <ul className="policy-files__list" aria-label="Policies">
          {policies.map((policy) => (
            <PolicyListItem
              key={policy.path}
              policy={policy}
              open={policy.path === openPath}
              busy={fileAction !== null}
              acting={fileAction?.path === policy.path ? fileAction.kind : null}
              message={fileMessage?.path === policy.path ? fileMessage : null}
              onOpen={() => openPolicy(policy.path)}
              onAdopt={() => adoptPolicy(policy.path)}
              onRevert={() => revertPolicy(policy.path)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
