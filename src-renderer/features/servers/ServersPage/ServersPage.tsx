import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { AgentClients } from '../AgentClients/AgentClients.js';
import { ServerSection } from '../ServerSection/ServerSection.js';

function EmptyState({ loading }: { loading: boolean }) {
  if (loading) return <p className="servers-empty">Loading governed servers…</p>;
  return (
    <div className="servers-empty">
      <p className="servers-empty__title">No MCP server has run through Silas yet</p>
      <p>Route an agent client&apos;s servers through the proxy in one step, with &ldquo;Wrap servers…&rdquo; under Agent clients below, or:</p>
      <pre>
        <code>silas clients wrap CLIENT --policy FILE</code>
      </pre>
      <p>or start one server behind a policy by hand:</p>
      <pre>
        <code>silas proxy --policy FILE -- COMMAND</code>
      </pre>
      <p>Each server appears here the first time its proxy starts.</p>
    </div>
  );
}

/** The MCP servers governed by `silas proxy` (policy, rejected policy edits, pinned tools and changes waiting for you, recent decisions), then the agent clients to wrap and unwrap. */
export function ServersPage() {
  const servers = useCockpit((s) => s.servers.servers);
  const status = useCockpit((s) => s.servers.status);
  const error = useCockpit((s) => s.servers.error);
  const deciding = useCockpit((s) => s.review.deciding);
  const decideError = useCockpit((s) => s.review.decideError);
  const { decide } = useCockpitActions();

  return (
    <section className="page page--servers" aria-labelledby="page-Servers">
      <h1 id="page-Servers">Servers</h1>
      <p className="page__lead">
        The MCP servers governed by <code>silas proxy</code>: the policy each one runs under, the tool definitions you trust, and what the
        policy decided lately.
      </p>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the servers: {error}
        </p>
      ) : null}
      {servers.length === 0 ? (
        <EmptyState loading={status === 'loading' || status === 'idle'} />
      ) : (
        servers.map((server) => (
          <ServerSection
            key={server.name}
            server={server}
            deciding={deciding}
            decideError={decideError}
            // Accepting a change is the "approve" answer to its Review card, sent like any decision.
            onApprove={(decisionId) => decide(decisionId, 'approve')}
          />
        ))
      )}
      <AgentClients />
    </section>
  );
}
