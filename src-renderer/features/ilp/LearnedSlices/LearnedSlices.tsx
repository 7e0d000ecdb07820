import { useEffect, useId, useRef, useState } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import type { IlpLearnedSlice } from '../../../store/ilp-learned.js';
import { DistillPanel } from '../DistillPanel/DistillPanel.js';
import { SliceHistory } from '../SliceHistory/SliceHistory.js';
import { inForceText, latestText, latestTitle, LEARNED_EMPTY_TEXT, rollbackName, rollbackOutcomeText, rollbackQuestion, untrustedText, versionText } from '../learned-format.js';

/**
 * The slices knowledge distillation learned (spec 004 §4.3; docs/ilp.md "Knowledge distillation"):
 * "Distill now", then each learned slice with the version the navigator reads, its newest status,
 * its history, and a rollback asked first in the page. Read when the page opens (and on every
 * connect), after a distillation or a rollback, and when Review decides a proposal.
 */
export function LearnedSlices() {
  const headingId = useId();
  const slices = useCockpit((s) => s.ilp.learned.slices);
  const untrusted = useCockpit((s) => s.ilp.learned.untrusted);
  const status = useCockpit((s) => s.ilp.learned.status);
  const error = useCockpit((s) => s.ilp.learned.error);
  const rollingBack = useCockpit((s) => s.ilp.learned.rollback.phase === 'sending');
  const [asking, setAsking] = useState<string | null>(null);
  const { rollbackSlice } = useCockpitActions();

  const answer = (sliceId: string, rollBack: boolean) => {
    setAsking(null);
    if (rollBack) rollbackSlice(sliceId);
  };

  return (
    <section className="ilp-learned" aria-labelledby={headingId}>
      <h2 id={headingId}>Learned slices</h2>
      <p className="ilp-learned__lead">
        Distillation turns what answered queries show again and again into slices of knowledge every specialist reads. The planner model writes each one; it is
        checked, then waits for you in Review. A slice in force can be put back to its previous version.
      </p>
      <DistillPanel />
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the learned slices: {error}
        </p>
      ) : null}
      {untrusted > 0 ? <p className="notice notice--warn ilp-learned__untrusted">{untrustedText(untrusted)}</p> : null}
      <RollbackOutcome />
      {slices.length === 0 ? (
        <p className="ilp-empty-note">{status === 'ready' || status === 'error' ? LEARNED_EMPTY_TEXT : 'Loading the learned slices…'}</p>
      ) : (
        <table className="server-table ilp-learned__table" aria-label="Learned slices">
          <thead>
            <tr>
              <th scope="col">Slice</th>
              <th scope="col">In force</th>
              <th scope="col">Latest</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {slices.map((slice) => (
              <SliceRow key={slice.slice_id} slice={slice} busy={rollingBack} asking={asking === slice.slice_id} onAsk={() => setAsking(slice.slice_id)} onAnswer={(yes) => answer(slice.slice_id, yes)} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface SliceRowProps {
  slice: IlpLearnedSlice;
  /** A rollback (of any slice) is on its way: every Roll back button waits. */
  busy: boolean;
  /** The rollback question is asked for this slice. */
  asking: boolean;
  onAsk(): void;
  onAnswer(rollBack: boolean): void;
}

function SliceRow({ slice, busy, asking, onAsk, onAnswer }: SliceRowProps) {
  const [open, setOpen] = useState(false);
  const historyId = useId();
  const deployed = slice.deployed_version;
  return (
    <>
      <tr className="ilp-learned__row">
        <th scope="row">
          <code>{slice.slice_id}</code>
          <span className="ilp-learned__title">{latestTitle(slice)}</span>
        </th>
        <td>
          {inForceText(deployed)}
          {slice.problem !== null ? <span className="ilp-tone--bad ilp-learned__problem"> — not used: {slice.problem}</span> : null}
        </td>
        <td>{latestText(slice)}</td>
        <td className="ilp-learned__actions">
          <button
            type="button"
            className="button button--quiet ilp-learned__history-toggle"
            aria-expanded={open}
            aria-controls={historyId}
            aria-label={`History of ${slice.slice_id}`}
            onClick={() => setOpen((was) => !was)}
          >
            <span aria-hidden="true">▸</span> History
          </button>{' '}
          <button type="button" className="button button--warn" disabled={deployed === null || busy} aria-label={rollbackName(slice.slice_id)} aria-expanded={asking} onClick={onAsk}>
            Roll back
          </button>
        </td>
      </tr>
      {asking && deployed !== null ? (
        <tr className="ilp-learned__question-row">
          <td colSpan={4}>
            <RollbackQuestion sliceId={slice.slice_id} deployed={deployed} onAnswer={onAnswer} />
          </td>
        </tr>
      ) : null}
      <tr id={historyId} className="ilp-learned__history-row" hidden={!open}>
        <td colSpan={4}>{open ? <SliceHistory slice={slice} /> : null}</td>
      </tr>
    </>
  );
}

/** Asked in the page before a rollback; focus goes to "Keep", so a stray Enter changes nothing. */
function RollbackQuestion({ sliceId, deployed, onAnswer }: { sliceId: string; deployed: number; onAnswer(rollBack: boolean): void }) {
  const textId = useId();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    keep.current?.focus();
  }, []);
  return (
    <div className="notice notice--warn ilp-learned__question" role="alertdialog" aria-label={rollbackName(sliceId)} aria-describedby={textId}>
      <p id={textId}>{rollbackQuestion(sliceId, deployed)}</p>
      <div className="discard-draft__actions">
        <button type="button" className="button" ref={keep} onClick={() => onAnswer(false)}>
          Keep {versionText(deployed)}
        </button>
        <button type="button" className="button button--warn" onClick={() => onAnswer(true)}>
          Yes, roll back
        </button>
      </div>
    </div>
  );
}

/** The last rollback: on its way, done (in words), or refused with the runtime's message. */
function RollbackOutcome() {
  const phase = useCockpit((s) => s.ilp.learned.rollback.phase);
  const slice = useCockpit((s) => s.ilp.learned.rollback.slice);
  const result = useCockpit((s) => s.ilp.learned.rollback.result);
  const error = useCockpit((s) => s.ilp.learned.rollback.error);
  return (
    <>
      <p role="status" aria-label="Rollback" className="ilp-learned__outcome">
        {phase === 'sending' ? `Rolling back ${slice ?? ''}…` : result ? rollbackOutcomeText(result) : null}
      </p>
      {phase === 'error' && error ? (
        <p role="alert" className="notice notice--error">
          Could not roll back {slice}: {error}
        </p>
      ) : null}
    </>
  );
}
