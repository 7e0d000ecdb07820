import { PolicyEditor } from '../PolicyEditor/PolicyEditor.js';
import { PolicyHistory } from '../PolicyHistory/PolicyHistory.js';
import { TestBench } from '../TestBench/TestBench.js';

/**
 * Everything shown for the open policy: editor, test bench, history. The Policies page loads it
 * lazily (with CodeMirror after it), so the cockpit's first load carries only the list.
 */
export function PolicyWorkspace() {
  return (
    <>
      <PolicyEditor />
      <TestBench />
      <PolicyHistory />
    </>
  );
}
