import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { DiscardQuestion } from '../../../components/DiscardQuestion/DiscardQuestion.js';
import { fileName } from '../policy-editor-format.js';

/** Asked before an unsaved policy draft is dropped (another policy opened, the same one read again, the editor closed). */
export function DiscardDraft() {
  const discard = useCockpit((s) => s.policyEditor.discard);
  const { settleDiscard } = useCockpitActions();
  if (!discard) return null;
  const then = discard.next === null ? 'close the editor' : discard.next === discard.path ? `read ${fileName(discard.next)} again from disk` : `open ${fileName(discard.next)}`;
  return <DiscardQuestion title="Unsaved changes" text={`Your changes to ${fileName(discard.path)} are not saved. Discard them and ${then}?`} onAnswer={settleDiscard} />;
}
