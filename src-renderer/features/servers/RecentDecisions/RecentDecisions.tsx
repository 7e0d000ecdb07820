import { useId } from 'react';
import type { AuditEntry } from '../../../../src-shared/schemas/audit.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { DecisionBadge } from '../DecisionBadge/DecisionBadge.js';
import { decisionRow } from '../servers-format.js';

/** The runtime sends at most this many, newest first; the page never shows more. */
const RECENT_DECISIONS = 20;

/** The server's last policy decisions, newest first: time, tool, decision, violation. */
export function RecentDecisions({ entries }: { entries: readonly AuditEntry[] }) {
  const headingId = useId();
  const rows = entries.slice(0, RECENT_DECISIONS).map(decisionRow);
  return (
    <div className="server-block">
      <h3 id={headingId}>Recent decisions</h3>
      {rows.length === 0 ? (
        <p className="server-block__empty">No tool calls through this server yet.</p>
      ) : (
        <table className="server-table" aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Tool</th>
              <th scope="col">Decision</th>
              <th scope="col">Violation</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <time dateTime={row.ts}>{formatLocalTime(row.ts)}</time>
                </td>
                <td>
                  <code>{row.tool}</code>
                </td>
                <td>
                  <DecisionBadge decision={row.decision} />
                </td>
                <td>{row.violation ? <span className="server-violation">Yes{row.detail ? ` — ${row.detail}` : ''}</span> : 'No'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
