import { memo, useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import type { IlpSummary } from '../../../store/ilp-state.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { constitutionalText, hopsText, statusText, statusTone, usdText } from '../ilp-format.js';

/**
 * The stored compositions, newest stored first (docs/ilp.md "Inspector"): a page at a time, with older
 * pages on request, and kept live by `ilp.composition`. Rows are memoised, so a composition that
 * arrives re-renders one row however many pages are held.
 */
export function CompositionList() {
  const headingId = useId();
  const compositions = useCockpit((s) => s.ilp.compositions);
  const total = useCockpit((s) => s.ilp.total);
  const status = useCockpit((s) => s.ilp.listStatus);
  const error = useCockpit((s) => s.ilp.listError);
  const hasMore = useCockpit((s) => s.ilp.hasMore);
  const loadingOlder = useCockpit((s) => s.ilp.loadingOlder);
  const selected = useCockpit((s) => s.ilp.selected);
  const { selectComposition, loadOlderCompositions } = useCockpitActions();

  return (
    <section className="ilp-list" aria-labelledby={headingId}>
      <h2 id={headingId}>Compositions</h2>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the compositions: {error}
        </p>
      ) : null}
      {compositions.length === 0 ? (
        status === 'ready' || status === 'error' ? (
          <EmptyCompositions />
        ) : (
          <p className="ilp-empty-note">Loading the compositions…</p>
        )
      ) : (
        <>
          <p className="ilp-list__count">
            {compositions.length.toLocaleString('en-US')} of {total.toLocaleString('en-US')} shown
          </p>
          <ol className="ilp-list__rows" aria-label="Compositions">
            {compositions.map((composition) => (
              <CompositionRow key={composition.id} composition={composition} shown={composition.id === selected} onSelect={selectComposition} />
            ))}
          </ol>
          {hasMore ? (
            <button type="button" className="button" disabled={loadingOlder} onClick={loadOlderCompositions}>
              {loadingOlder ? 'Loading older compositions…' : 'Load older compositions'}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

interface RowProps {
  composition: IlpSummary;
  shown: boolean;
  onSelect(id: string): void;
}

const CompositionRow = memo(function CompositionRow({ composition: c, shown, onSelect }: RowProps) {
  return (
    <li className={`ilp-row${shown ? ' ilp-row--shown' : ''}${c.trusted ? '' : ' ilp-row--untrusted'}`} aria-current={shown ? 'true' : undefined}>
      <button type="button" className="ilp-row__open" onClick={() => onSelect(c.id)}>
        {c.query}
      </button>
      <p className="ilp-row__facts">
        <span className={`ilp-tone--${statusTone(c.status)}`}>{statusText(c.status)}</span> · {constitutionalText(c.constitutional_status)} · {usdText(c.cost_usd)} · {hopsText(c.hops)} ·{' '}
        <time dateTime={c.started_at}>{formatLocalTime(c.started_at)}</time>
      </p>
      {c.replay_of !== null ? (
        <p className="ilp-row__replay">
          Replay of <code>{c.replay_of}</code>
        </p>
      ) : null}
      {c.trusted ? null : <p className="ilp-row__untrusted ilp-tone--bad">Not trusted — changed outside Silas</p>}
    </li>
  );
});

/** How compositions arrive, for a home that has none yet. */
/** A composition from a shell: the URI's query is the request's Constitutional-Header (docs/ilp.md "Transports"). */
const SEND_COMMAND = "silas ilp send 'ilp://meta-agent/insight?domain=meta&depth=0&budget_usd=0&max_budget_usd=0.05' --body query.json";

function EmptyCompositions() {
  return (
    <div className="ilp-empty">
      <p>No composition is stored yet. Each query the meta-agent answers is stored here with every hop, so you can see how it was composed and replay it under other limits.</p>
      <p>Send one from a shell:</p>
      <pre className="ilp-empty__command">{SEND_COMMAND}</pre>
      <p>or POST an ILP/1.0 THINK message to the runtime&apos;s ILP endpoint (docs/ilp.md).</p>
    </div>
  );
}
