import { useCockpit } from '../../../app/cockpit-context.js';
import { CardDiscard } from '../CardDiscard/CardDiscard.js';
import { AgentList } from '../AgentList/AgentList.js';
import { AgentView } from '../AgentView/AgentView.js';
import { FleetCoherence } from '../FleetCoherence/FleetCoherence.js';

/**
 * Alignment (AAP; docs/alignment.md "The Alignment page"): every governed agent with its Alignment
 * Card; for the one shown, its drift over time, its violations, the trace inspector and the card
 * editor; then the value coherence of the whole fleet.
 */
export function AlignmentPage() {
  const selected = useCockpit((s) => s.alignment.selected);
  return (
    <section className="page page--alignment" aria-labelledby="page-Alignment">
      <h1 id="page-Alignment">Alignment</h1>
      <p className="page__lead">
        Each agent&apos;s Alignment Card declares the values it applies, what it may do on its own and when it must ask you. Every decision it makes is
        recorded as a trace, verified against the card, and compared with how the agent behaved before: a sustained change raises a drift alert.
      </p>
      <div className="alignment-layout">
        <AgentList />
        <CardDiscard />
        {selected === null ? (
          <p className="alignment-layout__pick">Show an agent to see its drift, its violations and its card.</p>
        ) : (
          <AgentView agentId={selected} />
        )}
      </div>
      <FleetCoherence />
    </section>
  );
}
