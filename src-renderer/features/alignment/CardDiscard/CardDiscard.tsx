import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { DiscardQuestion } from '../../../components/DiscardQuestion/DiscardQuestion.js';

/** Asked before another agent replaces an Alignment Card draft that was not saved. */
export function CardDiscard() {
  const question = useCockpit((s) => s.alignment.cardDiscard);
  const { settleCardDiscard } = useCockpitActions();
  if (!question) return null;
  return (
    <DiscardQuestion
      title="Unsaved card"
      text={`Your changes to the card of ${question.agentId} are not saved. Discard them and show ${question.next}?`}
      onAnswer={settleCardDiscard}
    />
  );
}
