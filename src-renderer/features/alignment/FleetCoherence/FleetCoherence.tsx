import { useId, useMemo } from 'react';
import { useCockpit } from '../../../app/cockpit-context.js';
import { coherenceLevel, conflictIndex, pairKey } from '../fleet-format.js';

/**
 * Value coherence between every pair of governed agents (AAP §6.4): the matrix as a heatmap table
 * with conflicting pairs marked, what each conflict is about, and the outliers and clusters.
 */
export function FleetCoherence() {
  const headingId = useId();
  const fleet = useCockpit((s) => s.alignment.fleet);
  const status = useCockpit((s) => s.alignment.fleetStatus);
  const error = useCockpit((s) => s.alignment.fleetError);
  const conflicts = useMemo(() => conflictIndex(fleet?.conflicts ?? []), [fleet]);

  return (
    <section className="fleet-coherence" aria-labelledby={headingId}>
      <h2 id={headingId}>Fleet coherence</h2>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the fleet&apos;s coherence: {error}
        </p>
      ) : null}
      {fleet === null ? (
        <p className="fleet-coherence__empty">{status === 'error' ? 'No coherence to show.' : 'Loading the fleet…'}</p>
      ) : fleet.agents.length < 2 ? (
        <p className="fleet-coherence__empty">Coherence compares the values of two agents or more; there {fleet.agents.length === 1 ? 'is one' : 'is none'} yet.</p>
      ) : (
        <>
          <p className="fleet-coherence__score">
            Fleet coherence <strong>{fleet.fleetScore.toFixed(2)}</strong> (mean over every pair; 1 means the same values, no conflict).
          </p>
          <div className="fleet-coherence__scroll">
            <table className="coherence-matrix">
              <caption>Coherence matrix</caption>
              <thead>
                <tr>
                  <td />
                  {fleet.agents.map((agent) => (
                    <th key={agent} scope="col">
                      <code>{agent}</code>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {fleet.agents.map((rowAgent, i) => (
                  <tr key={rowAgent}>
                    <th scope="row">
                      <code>{rowAgent}</code>
                    </th>
                    {fleet.agents.map((colAgent, j) => {
                      const score = fleet.matrix[i]?.[j] ?? 0;
                      const conflict = i === j ? undefined : conflicts.get(pairKey(rowAgent, colAgent));
                      return (
                        <td key={colAgent} className={`coherence-cell coherence-cell--${i === j ? 'self' : coherenceLevel(score)}${conflict ? ' coherence-cell--conflict' : ''}`}>
                          {i === j ? '—' : score.toFixed(2)}
                          {conflict ? <span className="coherence-cell__conflict"> conflict: {conflict.join(', ')}</span> : null}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Conflicts</h3>
          {fleet.conflicts.length === 0 ? (
            <p>No pair of agents holds conflicting values.</p>
          ) : (
            <ul className="fleet-coherence__conflicts" aria-label="Value conflicts">
              {fleet.conflicts.map((c) => (
                <li key={pairKey(c.agentA, c.agentB)}>
                  <code>{c.agentA}</code> and <code>{c.agentB}</code> conflict on {c.values.join(', ')}
                </li>
              ))}
            </ul>
          )}
          <h3>Outliers</h3>
          {fleet.outliers.length === 0 ? (
            <p>No outlier: no agent is far less coherent with the others than the fleet is.</p>
          ) : (
            <ul aria-label="Outliers">
              {fleet.outliers.map((agent) => (
                <li key={agent}>
                  <code>{agent}</code>
                </li>
              ))}
            </ul>
          )}
          <h3>Clusters</h3>
          {fleet.clusters.length === 0 ? (
            <p>No cluster: no two agents are compatible.</p>
          ) : (
            <ul aria-label="Clusters">
              {fleet.clusters.map((cluster) => (
                <li key={cluster.join(' ')}>{cluster.join(', ')}</li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
