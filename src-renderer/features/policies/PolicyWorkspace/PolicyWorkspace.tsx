import { DraftChanges } from '../DraftChanges/DraftChanges.js';
import { PolicyEditor } from '../PolicyEditor/PolicyEditor.js';
import { PolicyForm } from '../PolicyForm/PolicyForm.js';
import { PolicyHistory } from '../PolicyHistory/PolicyHistory.js';
import { TestBench } from '../TestBench/TestBench.js';

/**
 * Everything shown for the open policy: editor, its changes from the policy in force, form view, test bench, history. The Policies page loads it
 * lazily (with CodeMirror after it), so the cockpit's first load carries only the list.
 */
export function PolicyWorkspace() {
  return (
    <>
      <PolicyEditor />
      <DraftChanges />
      <PolicyForm />
      <TestBench />
      <PolicyHistory />
    </>
  );
}
