import { lazy, Suspense } from 'react';
import { useCockpit } from '../../../app/cockpit-context.js';
import { DiscardDraft } from '../DiscardDraft/DiscardDraft.js';
import { PolicyList } from '../PolicyList/PolicyList.js';
import { StandingApprovals } from '../StandingApprovals/StandingApprovals.js';
import { TemplateGallery } from '../TemplateGallery/TemplateGallery.js';
import { fileName } from '../policy-editor-format.js';

/** The editor, test bench and history arrive in their own chunk when a policy is first opened. */
const PolicyWorkspace = lazy(() => import('../PolicyWorkspace/PolicyWorkspace.js').then((m) => ({ default: m.PolicyWorkspace })));

/** Policies: the AIP policies of this installation with their editor, test bench and history; then the standing approvals. */
export function PoliciesPage() {
  const isOpen = useCockpit((s) => s.policyEditor.open !== null);
  const opening = useCockpit((s) => s.policyEditor.opening);
  const openError = useCockpit((s) => s.policyEditor.openError);
  return (
    <section className="page page--policies" aria-labelledby="page-Policies">
      <h1 id="page-Policies">Policies</h1>
      <p className="page__lead">
        The AIP policies your proxies enforce — allow, block and ask rules, argument patterns, protected paths, rate limits and DLP. Edit one,
        try the draft against real calls, and save it signed with your owner key: running proxies pick it up at once.
      </p>
      <PolicyList />
      <TemplateGallery />
      <DiscardDraft />
      {opening ? <p className="policy-files__opening">Opening {fileName(opening)}…</p> : null}
      {openError ? (
        <p role="alert" className="notice notice--error">
          Could not open the policy: {openError}
        </p>
      ) : null}
      {isOpen ? (
        <Suspense fallback={<p className="policy-files__opening">Loading the editor…</p>}>
          <PolicyWorkspace />
        </Suspense>
      ) : null}
      <StandingApprovals />
    </section>
  );
}
