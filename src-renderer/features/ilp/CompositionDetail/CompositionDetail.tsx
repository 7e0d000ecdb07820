import { useId } from 'react';
import { useCockpit } from '../../../app/cockpit-context.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { CompositionGraph } from '../CompositionGraph/CompositionGraph.js';
import { HopMessages } from '../HopMessages/HopMessages.js';
import { constitutionalText, hopsText, statusText, statusTone, usdText } from '../ilp-format.js';
import { Influencers } from '../Influencers/Influencers.js';
import { ReplayForm } from '../ReplayForm/ReplayForm.js';

/** The composition inspected: its outcome and answer, its graph, its influencers, its messages, and the replay form. */
export function CompositionDetail() {
  const headingId = useId();
  const status = useCockpit((s) => s.ilp.view.status);
  const error = useCockpit((s) => s.ilp.view.error);
  const composition = useCockpit((s) => s.ilp.view.composition);

  if (composition === null) {
    return (
      <section className="ilp-detail" aria-label="Composition">
        {error ? (
          <p role="alert" className="notice notice--error">
            Could not load the composition: {error}
          </p>
        ) : (
          <p className="ilp-empty-note">{status === 'loading' ? 'Loading the composition…' : 'Pick a composition to inspect it.'}</p>
        )}
      </section>
    );
  }
  const c = composition;
  return (
    <section className="ilp-detail" aria-labelledby={headingId}>
      <h2 id={headingId} className="ilp-detail__query">
        {c.query}
      </h2>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not read the composition again: {error}
        </p>
      ) : null}
      <p className="ilp-detail__facts">
        <span className={`ilp-tone--${statusTone(c.status)}`}>{statusText(c.status)}</span> · {constitutionalText(c.constitutional_status)} · {usdText(c.cost_usd)} ·{' '}
        {hopsText(c.hops)} · depth {c.max_depth} · <time dateTime={c.started_at}>{formatLocalTime(c.started_at)}</time> · <code>{c.id}</code>
      </p>
      {c.replay_of !== null ? (
        <p className="ilp-detail__replay">
          Replay of <code>{c.replay_of}</code>
        </p>
      ) : null}
      {c.trusted ? null : (
        <p className="ilp-detail__untrusted ilp-tone--bad">Not trusted — changed outside Silas: its stored record failed its seal, so it is shown as found, not as the runtime&apos;s record.</p>
      )}
      <blockquote className="ilp-detail__answer" aria-label="Answer">
        {c.answer ?? 'No answer: the composition was refused or failed before the meta-agent composed one.'}
      </blockquote>
      <CompositionGraph hops={c.hop_list} />
      <Influencers influencers={c.influencers} />
      <HopMessages hops={c.hop_list} />
      <ReplayForm />
    </section>
  );
}
