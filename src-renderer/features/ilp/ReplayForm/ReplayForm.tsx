import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { headerDraftProblem } from '../../../store/ilp-header.js';
import { ReplayComparison } from '../ReplayComparison/ReplayComparison.js';

/**
 * Replays the inspected composition's query under an edited Constitutional-Header (spec 004 §6.1;
 * docs/ilp.md "Inspector"): prefilled with the header the query was sent with, checked as a JSON
 * object as the person types, sent with `ilp.replay` (it calls the models again, so it needs the
 * cockpit's decide capability), and the outcome shown beside the original's.
 */
export function ReplayForm() {
  const headingId = useId();
  const fieldId = useId();
  const problemId = useId();
  const original = useCockpit((s) => s.ilp.view.composition);
  const draft = useCockpit((s) => s.ilp.replay.draft);
  const phase = useCockpit((s) => s.ilp.replay.phase);
  const result = useCockpit((s) => s.ilp.replay.result);
  const error = useCockpit((s) => s.ilp.replay.error);
  const { editReplayHeader, replayComposition, selectComposition } = useCockpitActions();
  const problem = headerDraftProblem(draft);
  const sending = phase === 'sending';

  if (original === null) return null;
  return (
    <section className="ilp-replay" aria-labelledby={headingId}>
      <h2 id={headingId}>Replay</h2>
      <p className="ilp-replay__lead">
        Send this query again under other limits. Edit the Constitutional-Header it was sent with (depth, budget, honesty threshold…): the meta-agent runs
        again, calling its models and spending their budget, and the replay is stored beside the original.
      </p>
      <form
        className="ilp-replay__form"
        onSubmit={(event) => {
          event.preventDefault();
          replayComposition();
        }}
      >
        <label htmlFor={fieldId}>Constitutional-Header</label>
        <textarea
          id={fieldId}
          className="ilp-replay__header"
          rows={12}
          spellCheck={false}
          value={draft}
          aria-invalid={problem !== null}
          aria-describedby={problemId}
          onChange={(event) => editReplayHeader(event.target.value)}
        />
        <p id={problemId} className={`ilp-replay__check${problem ? ' ilp-tone--bad' : ''}`}>
          {problem ?? 'A JSON object: ready to replay.'}
        </p>
        <button type="submit" className="button button--primary" disabled={problem !== null || sending} aria-busy={sending || undefined}>
          {sending ? 'Replaying…' : 'Replay'}
        </button>
      </form>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not replay: {error}
        </p>
      ) : null}
      {result ? <ReplayComparison original={original} replay={result} onOpen={selectComposition} /> : null}
    </section>
  );
}
