import type { BenchResult } from '../../../store/policy-bench-rows.js';
import { benchSummary, decisionText, outcomeText } from '../policy-editor-format.js';

/** The bench's last run: each call's decision under the policy in force and under the draft, changes marked. */
export function BenchResults({ result }: { result: BenchResult }) {
  return (
    <div className="bench-results">
      <p className="bench-results__summary">{benchSummary(result)}</p>
      {result.rows.length > 0 ? (
        <table className="server-table bench-table" aria-label="Test results">
          <thead>
            <tr>
              <th scope="col">Call</th>
              <th scope="col">In force</th>
              <th scope="col">Draft</th>
              <th scope="col">Rule</th>
              <th scope="col">DLP</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {result.rows.map((row) => (
              <tr key={row.key} className={`bench-row${row.changed ? ' bench-row--changed' : ''}${row.passed === false ? ' bench-row--failed' : ''}`}>
                <td>
                  <code title={row.call}>{row.call}</code>
                </td>
                <td>{decisionText(row.inForce)}</td>
                <td>
                  <strong>{decisionText(row.draft)}</strong>
                </td>
                <td>{row.rule ?? '—'}</td>
                <td>{row.dlp ?? '—'}</td>
                <td>{outcomeText(row)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
