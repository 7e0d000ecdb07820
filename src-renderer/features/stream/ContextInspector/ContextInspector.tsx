import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import type { StreamContextView } from '../../../../src-shared/schemas/stream.js';
import { Fact } from '../../../components/Fact/Fact.js';
import { formatTokens } from '../stream-format.js';
import { percent, tokensText } from '../context-format.js';
import { ContextEviction } from './ContextEviction.js';
import { ContextSubscriptions } from './ContextSubscriptions.js';
import { ContextZoneSection } from './ContextZone.js';

/** The whole window: tokens in every zone against the total, and where eviction starts (§3.5 headroom math). */
function ContextTotals({ view }: { view: StreamContextView }) {
  return (
    <>
      <meter className="context-inspector__meter" aria-label="Context used" min={0} max={view.total_budget} high={view.threshold} value={view.used} />
      <dl className="context-inspector__facts">
        <Fact term="In context">{`${formatTokens(view.used)} of ${tokensText(view.total_budget)} (${percent(view.used, view.total_budget)})`}</Fact>
        <Fact term="Eviction above">{`${tokensText(view.threshold)} (${percent(view.threshold, view.total_budget)})`}</Fact>
        <Fact term="Profile">{view.profile}</Fact>
        <Fact term="Turns">{view.turns.toLocaleString('en-US')}</Fact>
      </dl>
    </>
  );
}

/**
 * What this conversation's context holds and why (spec 002 §5.7 `context_inspection`, §0.5): the
 * window against its eviction threshold, each zone against its budget under the active profile
 * with its items, and the last eviction. Read-only; the runtime's refusal is shown as it said it.
 */
export function ContextInspector({ id }: { id?: string }) {
  const view = useCockpit((s) => s.streamContext.view);
  const loading = useCockpit((s) => s.streamContext.loading);
  const error = useCockpit((s) => s.streamContext.error);
  const { refreshStreamContext } = useCockpitActions();

  return (
    <section id={id} aria-label="Context inspector" aria-busy={loading || undefined} className="context-inspector">
      <header className="context-inspector__header">
        <h2 className="stream-side__heading">Context</h2>
        <button type="button" className="button button--quiet" disabled={loading} onClick={refreshStreamContext}>
          Refresh
        </button>
      </header>
      {error !== null ? (
        <p role="alert" className="notice notice--error">
          Could not read the context: {error}
        </p>
      ) : null}
      {view === null ? (
        error === null ? <p className="context-zone__empty">Reading the context…</p> : null
      ) : (
        <>
          <ContextTotals view={view} />
          {view.zones.map((zone) => (
            <ContextZoneSection key={zone.zone} zone={zone} />
          ))}
          <ContextSubscriptions subscriptions={view.subscriptions} />
          <ContextEviction eviction={view.last_eviction} />
        </>
      )}
    </section>
  );
}
