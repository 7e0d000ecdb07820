import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { checkName, signatureText, signatureTone } from '../alignment-format.js';

/**
 * One AP-Trace in full: each verification check with its outcome and detail, the signature, whether
 * the stored trace is the one the hash chain holds and at which entries, then the trace and the
 * card it was verified against as JSON.
 */
export function TraceInspector() {
  const headingId = useId();
  const inspector = useCockpit((s) => s.alignment.inspector);
  const { closeTrace } = useCockpitActions();
  const view = inspector.view;

  return (
    <section className="trace-inspector" aria-labelledby={headingId} aria-busy={inspector.status === 'loading'}>
      <h2 id={headingId}>Trace inspector</h2>
      {inspector.traceId === null ? (
        <p className="trace-inspector__empty">Choose a violation or a drift alert to see its trace, the card it was checked against and each check&apos;s outcome.</p>
      ) : (
        <div className="trace-inspector__head">
          <p>
            Trace <code>{inspector.traceId}</code>
          </p>
          <button type="button" className="button" onClick={closeTrace}>
            Close the trace
          </button>
        </div>
      )}
      {inspector.status === 'loading' ? <p className="trace-inspector__loading">Loading the trace…</p> : null}
      {inspector.error ? (
        <p role="alert" className="notice notice--error">
          Could not load the trace: {inspector.error}
        </p>
      ) : null}
      {view ? (
        <>
          <dl className="trace-inspector__facts">
            <div>
              <dt>Signature</dt>
              <dd className={`alignment-tone alignment-tone--${signatureTone(view.signature)}`}>{signatureText(view.signature)}</dd>
            </div>
            <div>
              <dt>Hash chain</dt>
              <dd className={`alignment-tone alignment-tone--${view.matchesChain ? 'ok' : 'bad'}`}>
                {view.matchesChain ? 'Matches the chain entry' : 'Differs from what the chain entry holds'}
              </dd>
            </div>
            <div>
              <dt>Audit entries</dt>
              <dd>
                Trace in entry #{view.auditIndex}, decision in entry #{view.sourceIndex}
              </dd>
            </div>
          </dl>
          <h3>Checks</h3>
          <ul className="trace-checks" aria-label="Checks">
            {view.checks.map((check) => (
              <li key={check.check} className={`trace-check trace-check--${check.passed ? 'passed' : 'failed'}`}>
                <span className="trace-check__name">{checkName(check.check)}</span>{' '}
                <span className={`alignment-badge alignment-badge--${check.passed ? 'ok' : 'bad'}`}>{check.passed ? 'Passed' : 'Failed'}</span>{' '}
                <span className="trace-check__detail">{check.detail}</span>
              </li>
            ))}
          </ul>
          <h3>Trace</h3>
          <pre className="trace-inspector__json">
            {JSON.stringify(view.trace, null, 2)}
          </pre>
          <details className="trace-inspector__card">
            <summary>The card it was checked against</summary>
            <pre className="trace-inspector__json">
              {JSON.stringify(view.card, null, 2)}
            </pre>
          </details>
        </>
      ) : null}
    </section>
  );
}
