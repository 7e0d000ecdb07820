import { useId } from 'react';
import type { PolicyDiagnostic } from '../../../store/policy-editor-state.js';
import { problemText } from '../policy-editor-format.js';

export interface ProblemsProps {
  /** The runtime's diagnostics for the draft; null before its first check. */
  diagnostics: readonly PolicyDiagnostic[] | null;
  /** The diagnostics are for an earlier text than the one in the editor (a check is on its way). */
  stale: boolean;
}

/** Every error and warning the runtime's loader reports for the draft, at its line and column. */
export function Problems({ diagnostics, stale }: ProblemsProps) {
  const headingId = useId();
  const count = diagnostics?.length ?? 0;
  return (
    <section className={`policy-problems${stale ? ' policy-problems--stale' : ''}`} aria-labelledby={headingId} aria-busy={stale}>
      {/* The region's name stays "Problems" whatever the count. */}
      <h3>
        <span id={headingId}>Problems</span>
        {count > 0 ? <span className="policy-problems__count"> ({count})</span> : null}
      </h3>
      {diagnostics === null ? (
        <p className="policy-problems__none">Checking the draft…</p>
      ) : count === 0 ? (
        <p className="policy-problems__none">No problems: the draft loads.</p>
      ) : (
        <ul className="policy-problems__list">
          {diagnostics.map((d, index) => (
            <li key={`${index}-${d.line}-${d.column}`} className={`policy-problem policy-problem--${d.severity}`}>
              {problemText(d)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
