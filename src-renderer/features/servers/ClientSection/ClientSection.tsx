import { useId } from 'react';
import type { AgentClientView } from '../../../../src-shared/schemas/clients.js';
import type { ClientsState, WrapFlow as WrapFlowState } from '../../../store/clients-slice.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { canUnwrap, canWrap, serverStatus, transportLabel, wrapSummary } from '../clients-format.js';
import { WrapFlow } from '../WrapFlow/WrapFlow.js';

export interface ClientSectionProps {
  client: AgentClientView;
  /** The wrap flow, when it is open for this client. */
  flow: WrapFlowState | null;
  /** Another client's flow is open, or an unwrap is on its way: this client's buttons wait. */
  busy: boolean;
  unwrapping: boolean;
  unwrapError: string | null;
  outcome: ClientsState['outcome'];
  onOpenWrap(): void;
  /** Plan the wrap of the chosen servers (never empty) under `policy`. */
  onPreview(policy: string, servers: string[]): void;
  /** Apply the plan shown, made for `servers`; `clients.wrap` sends the same names. */
  onApply(servers: string[]): void;
  onCancel(): void;
  onUnwrap(): void;
}

/** One agent client whose configuration exists: its file, each server's state, and wrap / unwrap. */
export function ClientSection({ client, flow, busy, unwrapping, unwrapError, outcome, onOpenWrap, onPreview, onApply, onCancel, onUnwrap }: ClientSectionProps) {
  const headingId = useId();
  const unwrapId = useId();
  const wrapId = useId();
  return (
    <section className="client" aria-labelledby={headingId}>
      <header className="client__header">
        <h3 id={headingId}>{client.label}</h3>
        {client.error === null ? <span className="client__summary">{wrapSummary(client)}</span> : null}
      </header>
      <p className="client__file">
        <code>{client.file}</code>
      </p>
      {client.error !== null ? (
        <p role="alert" className="notice notice--error">
          Cannot read this configuration: {client.error}
        </p>
      ) : client.servers.length > 0 ? (
        <table className="server-table" aria-label={`MCP servers of ${client.label}`}>
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">Transport</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {client.servers.map((server) => {
              const status = serverStatus(server);
              return (
                <tr key={server.name}>
                  <td>
                    <code>{server.name}</code>
                  </td>
                  <td>{transportLabel(server.transport)}</td>
                  <td>
                    <span className={`client-status client-status--${status.tone}`}>{status.text}</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {client.lastWrap ? (
        <p className="client__last-wrap">
          Wrapped by Silas on <time dateTime={client.lastWrap.wrappedAt}>{formatLocalTime(client.lastWrap.wrappedAt)}</time>; the original is kept in{' '}
          <code>{client.lastWrap.backup}</code>
        </p>
      ) : null}
      {flow === null && (canWrap(client) || canUnwrap(client)) ? (
        <div className="client__actions">
          {canWrap(client) ? (
            <span className="client__action">
              <button type="button" className="button" disabled={busy} aria-describedby={wrapId} onClick={onOpenWrap}>
                Wrap servers…
              </button>
              <span id={wrapId} className="wrap-flow__consequence">
                Choose a policy and preview the changes; nothing is written yet
              </span>
            </span>
          ) : null}
          {canUnwrap(client) ? (
            <span className="client__action">
              <button type="button" className="button button--warn" disabled={busy || unwrapping} aria-describedby={unwrapId} onClick={onUnwrap}>
                Unwrap
              </button>
              <span id={unwrapId} className="wrap-flow__consequence">
                Restores {client.file} exactly as it was before wrapping
              </span>
            </span>
          ) : null}
        </div>
      ) : null}
      {unwrapping ? <p className="wrap-flow__busy">Restoring…</p> : null}
      {unwrapError !== null ? (
        <p role="alert" className="notice notice--error wrap-flow__error">
          Could not unwrap: {unwrapError}
        </p>
      ) : null}
      {flow !== null ? <WrapFlow label={client.label} file={client.file} servers={client.servers} flow={flow} onPreview={onPreview} onApply={onApply} onCancel={onCancel} /> : null}
      {outcome !== null ? (
        <p role="status" className="notice client__outcome">
          {outcome.message}
        </p>
      ) : null}
    </section>
  );
}
