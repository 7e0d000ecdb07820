import { useId, useState, type MouseEvent } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { isPlainClick } from '../../../lib/plain-click.js';
import { routeHash } from '../../../lib/routes.js';
import type { IlpDistillOutcome } from '../../../store/ilp-learned.js';
import { DISTILL_PENDING_TEXT, distillNotes, MIN_FREQUENCY, minFrequencyProblem, nothingProposedText, proposedLead } from '../learned-format.js';

/**
 * "Distill now" (spec 004 §4.3; docs/ilp.md "Knowledge distillation"): patterns in the trusted
 * episodes of episodic memory, a slice written for each by the planner model and checked. It takes
 * tens of seconds and spends model budget; nothing it writes is deployed: each proposal waits in
 * Review, which the outcome links to. What it turned down is listed with the reasons.
 */
export function DistillPanel() {
  const fieldId = useId();
  const hintId = useId();
  const phase = useCockpit((s) => s.ilp.learned.distill.phase);
  const result = useCockpit((s) => s.ilp.learned.distill.result);
  const error = useCockpit((s) => s.ilp.learned.distill.error);
  const { distillSlices } = useCockpitActions();
  const [minFrequency, setMinFrequency] = useState(String(MIN_FREQUENCY.default));
  const problem = minFrequencyProblem(minFrequency);
  const running = phase === 'running';

  return (
    <div className="ilp-distill">
      <form
        className="ilp-distill__form"
        onSubmit={(event) => {
          event.preventDefault();
          if (problem === null) distillSlices({ min_frequency: Number(minFrequency) });
        }}
      >
        <label htmlFor={fieldId}>Minimum episodes per pattern</label>
        <input
          id={fieldId}
          className="ilp-distill__frequency"
          type="number"
          inputMode="numeric"
          min={MIN_FREQUENCY.min}
          max={MIN_FREQUENCY.max}
          step={1}
          value={minFrequency}
          aria-invalid={problem !== null}
          aria-describedby={hintId}
          onChange={(event) => setMinFrequency(event.target.value)}
        />
        <span id={hintId} className={`ilp-distill__hint${problem ? ' ilp-tone--bad' : ''}`}>
          {problem ?? 'Answered queries that must share a pattern before it becomes a slice.'}
        </span>
        <button type="submit" className="button button--primary" disabled={running || problem !== null} aria-busy={running || undefined}>
          Distill now
        </button>
      </form>
      <p role="status" aria-label="Distillation" className="ilp-distill__status">
        {running ? DISTILL_PENDING_TEXT : result ? <OutcomeLine result={result} /> : null}
      </p>
      {!running && result ? <OutcomeDetails result={result} /> : null}
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not distill: {error}
        </p>
      ) : null}
    </div>
  );
}

function OutcomeLine({ result }: { result: IlpDistillOutcome }) {
  const { navigate } = useCockpitActions();
  if (result.proposed.length === 0) return <>{nothingProposedText(result)}</>;
  const openReview = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    navigate('review');
  };
  return (
    <>
      {proposedLead(result.proposed.length)}
      <a href={routeHash('review')} onClick={openReview}>
        Review
      </a>
    </>
  );
}

/** The patterns turned down with their reasons, and what the run left out. Concepts and reasons may come from the model: text only. */
function OutcomeDetails({ result }: { result: IlpDistillOutcome }) {
  const notes = distillNotes(result);
  if (result.rejected.length === 0 && notes.length === 0) return null;
  return (
    <div className="ilp-distill__details">
      {result.rejected.length > 0 ? (
        <ul className="ilp-distill__rejected" aria-label="Rejected patterns">
          {result.rejected.map((pattern, at) => (
            <li key={at}>
              <span className="ilp-distill__concepts">{pattern.concepts.join(', ')}</span>: {pattern.reasons.length > 0 ? pattern.reasons.join('; ') : 'no reason given'}
            </li>
          ))}
        </ul>
      ) : null}
      {notes.map((note) => (
        <p key={note} className="ilp-distill__note">
          {note}
        </p>
      ))}
    </div>
  );
}
