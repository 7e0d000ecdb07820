import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { countMediumOrHigher, isMediumOrHigher, needsDensityCue } from '../../../store/review-queue.js';
import { DecisionCard } from '../DecisionCard/DecisionCard.js';
import { NotificationToggle } from '../NotificationToggle/NotificationToggle.js';
import { riskSummary, waitingText } from '../review-format.js';
import { UpNext } from '../UpNext/UpNext.js';

function EmptyState({ loading }: { loading: boolean }) {
  if (loading) return <p className="review-empty">Loading the decision queue…</p>;
  return (
    <div className="review-empty">
      <p className="review-empty__title">No decisions waiting</p>
      <p>
        When a policy asks before an agent&apos;s tool call, silas run asks you to approve a plan, or a server changes a tool you trusted, the
        request appears here and waits for you.
      </p>
    </div>
  );
}

/**
 * §0.5.4: many medium+ decisions at once breed reflexive taps. Warn, loudly, but never slow
 * the person down — no waits, no disabled buttons. Every kind counts alike.
 */
function DensityCue() {
  const cards = useCockpit((s) => s.review.cards);
  if (!needsDensityCue(cards)) return null;
  return (
    <div role="status" className="notice review-density">
      <strong>{countMediumOrHigher(cards)} decisions at medium risk or higher are waiting</strong> (
      {riskSummary(cards.filter((card) => isMediumOrHigher(card.riskLevel)))}). Take each one on its own merits.
    </div>
  );
}

/** The Review surface (spec 002 §0.5.1): one active card, the rest stacked below, oldest request first, whatever the kind. */
export function ReviewPage() {
  const cards = useCockpit((s) => s.review.cards);
  const paused = useCockpit((s) => s.review.paused);
  const loading = useCockpit((s) => s.review.status === 'loading');
  const error = useCockpit((s) => s.review.error);
  const busy = useCockpit((s) => s.review.deciding !== null);
  const decideError = useCockpit((s) => s.review.decideError);
  const { decide } = useCockpitActions();
  const [active, ...rest] = cards;

  return (
    <section className="page page--review" aria-labelledby="page-Review">
      <header className="review-header">
        <div>
          <h1 id="page-Review">Review</h1>
          <p className="page__lead">One decision at a time, oldest first. Each approval is signed with your owner key.</p>
          {active ? <p className="review-note">{waitingText(cards)}</p> : null}
        </div>
        <NotificationToggle />
      </header>
      {paused ? (
        <div role="status" className="notice notice--warn">
          Approvals are paused — new requests are declined
        </div>
      ) : null}
      <DensityCue />
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the decision queue: {error}
        </p>
      ) : null}
      {decideError && decideError.id !== active?.id ? (
        <p role="alert" className="notice notice--error">
          Could not send your decision: {decideError.message}
        </p>
      ) : null}
      {active ? (
        <DecisionCard
          key={active.id}
          card={active}
          busy={busy}
          error={decideError?.id === active.id ? decideError.message : null}
          onDecide={(choice) => decide(active.id, choice)}
        />
      ) : (
        <EmptyState loading={loading} />
      )}
      <UpNext cards={rest} />
    </section>
  );
}
