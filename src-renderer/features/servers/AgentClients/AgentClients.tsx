import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { ClientSection } from '../ClientSection/ClientSection.js';

/** Every agent client Silas knows: the ones with a configuration get their servers, wrap and unwrap; the others one line each. */
export function AgentClients() {
  const headingId = useId();
  const clients = useCockpit((s) => s.clients.clients);
  const status = useCockpit((s) => s.clients.status);
  const error = useCockpit((s) => s.clients.error);
  const flow = useCockpit((s) => s.clients.wrap);
  const unwrapping = useCockpit((s) => s.clients.unwrapping);
  const unwrapError = useCockpit((s) => s.clients.unwrapError);
  const outcome = useCockpit((s) => s.clients.outcome);
  const { openWrap, cancelWrap, previewWrap, applyWrap, unwrapClient } = useCockpitActions();
  const found = clients.filter((c) => c.found);
  const missing = clients.filter((c) => !c.found);

  return (
    <section className="clients" aria-labelledby={headingId}>
      <h2 id={headingId}>Agent clients</h2>
      <p className="clients__lead">
        Wrapping rewrites a client&apos;s stdio servers to start through <code>silas proxy</code> under a policy. Quitting Silas never unwraps anything:
        wrapped servers stay governed until you unwrap them.
      </p>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the agent clients: {error}
        </p>
      ) : null}
      {clients.length === 0 && (status === 'idle' || status === 'loading') ? <p className="servers-empty">Looking for agent clients…</p> : null}
      {found.map((client) => (
        <ClientSection
          key={client.client}
          client={client}
          flow={flow?.client === client.client ? flow : null}
          busy={(flow !== null && flow.client !== client.client) || unwrapping !== null}
          unwrapping={unwrapping === client.client}
          unwrapError={unwrapError?.client === client.client ? unwrapError.message : null}
          outcome={outcome?.client === client.client ? outcome : null}
          onOpenWrap={() => openWrap(client.client)}
          onPreview={(policy, servers) => previewWrap(client.client, policy, servers)}
          onApply={applyWrap}
          onCancel={cancelWrap}
          onUnwrap={() => unwrapClient(client.client)}
        />
      ))}
      {missing.length > 0 ? (
        <div className="clients__missing">
          <h3>No MCP configuration found</h3>
          <ul aria-label="Clients without an MCP configuration">
            {missing.map((client) => (
              <li key={client.client}>
                {client.label}: not found at <code>{client.file}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
