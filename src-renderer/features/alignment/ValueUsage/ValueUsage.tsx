import { useMemo } from 'react';
import { formatCount, percent } from '../alignment-format.js';
import { valueUsageRows } from '../chart-data.js';

export interface ValueUsageProps {
  /** How often each value was applied over the traces held. */
  usage: Readonly<Record<string, number>>;
}

/** Which declared values the agent's decisions applied, most used first, each with a bar of its share. */
export function ValueUsage({ usage }: ValueUsageProps) {
  const rows = useMemo(() => valueUsageRows(usage), [usage]);
  if (rows.length === 0) return <p className="value-usage__empty">No value was applied by these decisions.</p>;
  return (
    <table className="value-usage">
      <caption>Value usage</caption>
      <thead>
        <tr>
          <th scope="col">Value</th>
          <th scope="col">Times applied</th>
          <th scope="col">Share</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.value}>
            <th scope="row">
              <code>{row.value}</code>
            </th>
            <td className="value-usage__count">{formatCount(row.count)}</td>
            <td className="value-usage__share">
              <meter min={0} max={1} value={row.share} aria-label={`${row.value}: ${percent(row.share)}`} />
              <span>{percent(row.share)}</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
