import { useId, useState } from 'react';
import { useCockpit } from '../../../app/cockpit-context.js';
import { LineDiffView } from '../LineDiffView/LineDiffView.js';

/**
 * The draft against the policy in force (docs/policy-editor.md): the file as it was read or last
 * saved, which running proxies enforce, beside what Save and sign would write.
 */
export function DraftChanges() {
  const headingId = useId();
  const [shown, setShown] = useState(false);
  const inForce = useCockpit((s) => s.policyEditor.open?.savedText ?? null);
  const draft = useCockpit((s) => s.policyEditor.open?.draft ?? null);
  if (inForce === null || draft === null) return null;
  return (
    <section className="policy-history" aria-labelledby={headingId}>
      <h2 id={headingId}>Changes from the policy in force</h2>
      <button type="button" className="button button--quiet" aria-expanded={shown} onClick={() => setShown((value) => !value)}>
        {shown ? 'Hide the changes' : 'Show the changes'}
      </button>
      {shown ? <LineDiffView title="The policy in force (−) against the draft (+)" before={inForce} after={draft} /> : null}
    </section>
  );
}
