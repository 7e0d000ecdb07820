import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { agentCountsText, cardSourceText } from '../alignment-format.js';

/** The governed agents (each proxied server, and Silas) with their card in force and their counts; one is shown below. */
export function AgentList() {
  const headingId = useId();
  const agents = useCockpit((s) => s.alignment.agents);
  const status = useCockpit((s) => s.alignment.agentsStatus);
  const error = useCockpit((s) => s.alignment.agentsError);
  const selected = useCockpit((s) => s.alignment.selected);
  const { showAgent } = useCockpitActions();

  return (
    <section className="alignment-agents" aria-labelledby={headingId}>
      <h2 id={headingId}>Agents</h2>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the agents: {error}
        </p>
      ) : null}
      {agents.length === 0 ? (
        <p className="alignment-agents__empty">
          {status === 'ready' || status === 'error'
            ? 'No governed agent has decided anything yet. Every call a wrapped server makes, and every action of Silas, becomes a verified trace here.'
            : 'Loading the agents…'}
        </p>
      ) : (
        <ul className="alignment-agents__list" aria-label="Agents">
          {agents.map((agent) => {
            const shown = agent.agentId === selected;
            return (
              <li key={agent.agentId} className={`alignment-agent${shown ? ' alignment-agent--shown' : ''}`} aria-current={shown ? 'true' : undefined}>
                <div className="alignment-agent__head">
                  <code className="alignment-agent__id">{agent.agentId}</code>
                  <button type="button" className="button" aria-label={`Show ${agent.agentId}`} onClick={() => showAgent(agent.agentId)}>
                    {shown ? 'Shown' : 'Show'}
                  </button>
                </div>
                <p className="alignment-agent__card">
                  {agent.cardId ? (
                    <>
                      Card <code>{agent.cardId}</code> · {cardSourceText(agent.cardSource)}
                    </>
                  ) : (
                    cardSourceText(null)
                  )}
                </p>
                <p className={`alignment-agent__counts${agent.violations > 0 || agent.alerts > 0 ? ' alignment-agent__counts--bad' : ''}`}>{agentCountsText(agent)}</p>
                {agent.cardRefused ? <p className="alignment-agent__refused alignment-tone alignment-tone--bad">Card refused — every action counts as a violation until you save or re-derive a card.</p> : null}
                {agent.countsTampered ? <p className="alignment-agent__tampered alignment-tone alignment-tone--bad">Counts were edited outside Silas; shown as the ledger records them.</p> : null}
                {agent.lastTs ? (
                  <p className="alignment-agent__last">
                    Last decision <time dateTime={agent.lastTs}>{formatLocalTime(agent.lastTs)}</time>
                  </p>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
