import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { offeredChips } from '../../../store/stream-reducer.js';

/**
 * §0.5 item 8: a decision Silas asks for comes as chips, not prose. A chip sends its value as
 * the person's next message, exactly as if typed; typing something else stays possible.
 */
export function DecisionChips() {
  const messages = useCockpit((s) => s.stream.messages);
  const chips = useCockpit((s) => s.stream.chips);
  const sending = useCockpit((s) => s.stream.sending);
  const { sendMessage } = useCockpitActions();
  const offered = offeredChips({ messages, chips });
  if (offered.length === 0) return null;
  return (
    <div role="group" aria-label="Suggested replies" className="decision-chips">
      {offered.map((chip) => (
        <button key={chip.value} type="button" className="decision-chip" disabled={sending} onClick={() => void sendMessage(chip.value)}>
          {chip.label}
        </button>
      ))}
    </div>
  );
}
