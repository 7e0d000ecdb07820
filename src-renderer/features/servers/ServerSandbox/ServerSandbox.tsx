import { useId } from 'react';
import type { AuditEntry } from '../../../../src-shared/schemas/audit.js';
import type { ServerSandboxSummary } from '../../../../src-shared/schemas/server-sandbox.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { UNSANDBOXED_MEANING, denialRow, environmentRows, limitRows, networkView, unsandboxedReason } from '../sandbox-format.js';
import { Fact } from '../../../components/Fact/Fact.js';

/** The runtime sends at most this many, newest first; the page never shows more. */
const RECENT_DENIALS = 20;

export interface ServerSandboxProps {
  /** What the latest start recorded; null for a start by a proxy from before sandboxing was recorded. */
  sandbox: ServerSandboxSummary | null;
  denials: readonly AuditEntry[];
}

function Names({ label, names, empty = 'None' }: { label: string; names: readonly string[]; empty?: string }) {
  if (names.length === 0) return <span className="sandbox__none">{empty}</span>;
  return (
    <ul className="sandbox__list" aria-label={label}>
      {names.map((name) => (
        <li key={name}>
          <code>{name}</code>
        </li>
      ))}
    </ul>
  );
}

function UnsandboxedAlert({ reason }: { reason: string | null }) {
  return (
    <div role="alert" className="sandbox-alert">
      <p>
        <strong>Unsandboxed</strong> — {unsandboxedReason(reason)}.
      </p>
      <p>{UNSANDBOXED_MEANING}</p>
    </div>
  );
}

function SandboxFacts({ sandbox }: { sandbox: ServerSandboxSummary }) {
  const network = networkView(sandbox.network);
  const env = environmentRows(sandbox.env, sandbox.secrets);
  return (
    <dl className="sandbox__facts">
      <Fact term="Backend">
        <code>{sandbox.backend}</code>
      </Fact>
      <Fact term="Read-only paths">
        <Names label="Read-only paths" names={sandbox.read} />
      </Fact>
      <Fact term="Read-write paths">
        <Names label="Read-write paths" names={sandbox.write} />
      </Fact>
      <Fact term="Runtime paths">
        <Names label="Runtime paths" names={sandbox.runtime} />
      </Fact>
      <Fact term="Masked protected paths">
        <Names label="Masked protected paths" names={sandbox.masked} />
      </Fact>
      <Fact term="Network">
        {network.label}
        {network.hosts.length > 0 ? <Names label="Allowed hosts" names={network.hosts} /> : null}
      </Fact>
      <Fact term="Limits">
        <ul className="sandbox__list" aria-label="Limits">
          {limitRows(sandbox.limits).map((row) => (
            <li key={row.label}>
              {row.label}: {row.value}
            </li>
          ))}
        </ul>
      </Fact>
      <Fact term="Environment">
        {env.length === 0 ? (
          <span className="sandbox__none">None</span>
        ) : (
          <ul className="sandbox__list" aria-label="Environment variables">
            {env.map((row) => (
              <li key={row.name}>
                <code>{row.name}</code>
                {row.fromKeyring ? <span className="sandbox__keyring"> — from the keyring</span> : null}
              </li>
            ))}
          </ul>
        )}
      </Fact>
    </dl>
  );
}

function SandboxDenials({ denials }: { denials: readonly AuditEntry[] }) {
  const headingId = useId();
  const rows = denials.slice(0, RECENT_DENIALS).map(denialRow);
  return (
    <>
      <h4 id={headingId} className="sandbox__subheading">
        Recent denials
      </h4>
      {rows.length === 0 ? (
        <p className="server-block__empty">No denials recorded</p>
      ) : (
        <table className="server-table" aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Destination</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <time dateTime={row.ts}>{formatLocalTime(row.ts)}</time>
                </td>
                <td>
                  <code>{row.target}</code>
                </td>
                <td>{row.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/**
 * What the server's sandbox lets it reach, as its latest start recorded it, and what the boundary
 * refused lately. An unsandboxed server is a warning, not a fact among others: it holds everything
 * the person holds.
 */
export function ServerSandbox({ sandbox, denials }: ServerSandboxProps) {
  const headingId = useId();
  // Without a sandbox nothing is checked, so "no denials" would read as reassurance it is not.
  const bounded = sandbox !== null && sandbox.backend !== 'none';
  return (
    <section className="server-block sandbox" aria-labelledby={headingId}>
      <h3 id={headingId}>Sandbox</h3>
      {sandbox === null ? (
        <p className="server-block__empty">Not recorded (started before sandboxing was recorded)</p>
      ) : sandbox.backend === 'none' ? (
        <UnsandboxedAlert reason={sandbox.unsandboxedReason} />
      ) : (
        <SandboxFacts sandbox={sandbox} />
      )}
      {bounded || denials.length > 0 ? <SandboxDenials denials={denials} /> : null}
    </section>
  );
}
