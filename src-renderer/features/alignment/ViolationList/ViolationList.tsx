import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { VIOLATIONS_SHOWN } from '../../../store/alignment-state.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { shortTraceId } from '../alignment-format.js';

/** The selected agent's newest traces that failed verification, each openable in the trace inspector. */
export function ViolationList() {
  const headingId = useId();
  const violations = useCockpit((s) => s.alignment.violations);
  const status = useCockpit((s) => s.alignment.violationsStatus);
  const error = useCockpit((s) => s.alignment.violationsError);
  const inspected = useCockpit((s) => s.alignment.inspector.traceId);
  const { inspectTrace } = useCockpitActions();

  return (
    <section className="alignment-violations" aria-labelledby={headingId}>
      <h2 id={headingId}>Violations</h2>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the violations: {error}
        </p>
      ) : null}
      {violations.length === 0 ? (
        <p className="alignment-violations__empty">{status === 'ready' || status === 'error' ? 'No violations: every trace kept to the card.' : 'Loading the violations…'}</p>
      ) : (
        <>
          <p className="alignment-violations__lead">
            {violations.length === VIOLATIONS_SHOWN ? `The newest ${VIOLATIONS_SHOWN}, newest first.` : 'Newest first.'}
          </p>
          <ul className="alignment-violations__list" aria-label="Recent violations">
            {violations.map((violation) => (
              <li key={violation.traceId} className="alignment-violation" aria-current={violation.traceId === inspected ? 'true' : undefined}>
                <time dateTime={violation.ts}>{formatLocalTime(violation.ts)}</time> <code>{violation.actionName}</code>
                {violation.tampered ? <span className="alignment-badge alignment-badge--bad">row edited outside Silas: the ledger's record</span> : null}
                <span className="alignment-violation__types">
                  {violation.violations.map((type) => (
                    <span key={type} className="alignment-badge alignment-badge--bad">
                      {type}
                    </span>
                  ))}
                </span>
                <button type="button" className="button" aria-label={`Inspect trace ${violation.traceId}`} onClick={() => inspectTrace(violation.traceId)}>
                  Inspect trace
                </button>
                <code className="alignment-violation__trace">{shortTraceId(violation.traceId)}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
