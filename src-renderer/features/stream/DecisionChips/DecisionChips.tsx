import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { offeredChips, type DecisionChip } from '../../../store/stream-reducer.js';
import { isSuggestionChip } from '../../../../src-shared/schemas/stream.js';
import { chipSourceLabel } from '../stream-format.js';

/**
 * §0.5 item 8: a decision Silas asks for comes as chips, not prose. A chip Silas itself offers
 * sends its value as the person's next message, exactly as if typed. A suggestion someone else
 * wrote (the executor's next steps, written after reading tool output: taint external, §5.12) is
 * labelled with its source and never sent as the person's words: picking it puts its text in the
 * composer, where the person reads, edits and sends it (docs/silas/stream.md).
 */
export function DecisionChips({ onSuggest }: { onSuggest: (text: string) => void }) {
  const messages = useCockpit((s) => s.stream.messages);
  const chips = useCockpit((s) => s.stream.chips);
  const sending = useCockpit((s) => s.stream.sending);
  const { sendMessage } = useCockpitActions();
  const offered = offeredChips({ messages, chips });
  if (offered.length === 0) return null;
  const replies = offered.filter((chip) => !isSuggestionChip(chip));
  const suggestions = offered.filter(isSuggestionChip);
  return (
    <>
      {replies.length > 0 ? (
        <div role="group" aria-label="Suggested replies" className="decision-chips">
          {replies.map((chip) => (
            <button key={chip.value} type="button" className="decision-chip" disabled={sending} onClick={() => void sendMessage(chip.value)}>
              {chip.label}
            </button>
          ))}
        </div>
      ) : null}
      {suggestions.length > 0 ? <Suggestions chips={suggestions} onSuggest={onSuggest} /> : null}
    </>
  );
}

function Suggestions({ chips, onSuggest }: { chips: readonly DecisionChip[]; onSuggest: (text: string) => void }) {
  const source = chipSourceLabel(chips[0]!);
  return (
    <div role="group" aria-label={`Suggestions ${source}`} className="decision-chips decision-chips--suggestions">
      <p className="decision-chips__source">Suggestions {source}; picking one puts it in your message box, not sent.</p>
      {chips.map((chip) => (
        <button key={chip.value} type="button" className="decision-chip decision-chip--suggestion" title={chip.value} onClick={() => onSuggest(chip.value)}>
          {chip.label}
        </button>
      ))}
    </div>
  );
}
