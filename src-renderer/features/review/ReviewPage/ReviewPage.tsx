import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { countMediumOrHigher, needsDensityCue } from '../../../store/approval-queue.js';
import { ApprovalCard } from '../ApprovalCard/ApprovalCard.js';
import { NotificationToggle } from '../NotificationToggle/NotificationToggle.js';
import { riskSummary } from '../review-format.js';
import { UpNext } from '../UpNext/UpNext.js';

function EmptyState({ loading }: { loading: boolean }) {
  if (loading) return <p className="review-empty">Loading the decision queue…</p>;
  return (
    <div className="review-empty">
      <p className="review-empty__title">No decisions waiting</p>
      <p>When a policy asks before an agent&apos;s tool call, the request appears here and waits for you.</p>
    </div>
  );
}

/**
 * §0.5.4: many medium+ decisions at once breed reflexive taps. Warn, loudly, but never slow
 * the person down — no waits, no disabled buttons.
 */
function DensityCue() {
  const pending = useCockpit((s) => s.approvals.pending);
  if (!needsDensityCue(pending)) return null;
  const elevated = pending.filter((card) => card.risk !== 'low');
  return (
    <div role="status" className="notice review-density">
      <strong>{countMediumOrHigher(pending)} approvals at medium risk or higher are waiting</strong> ({riskSummary(elevated)}). Take
      each one on its own merits.
    </div>
  );
}

/** The Review surface (spec 002 §0.5.1): one active card, oldest first, the rest stacked below. */
export function ReviewPage() {
  const pending = useCockpit((s) => s.approvals.pending);
  const paused = useCockpit((s) => s.approvals.paused);
  const status = useCockpit((s) => s.approvals.status);
  const error = useCockpit((s) => s.approvals.error);
  const deciding = useCockpit((s) => s.approvals.deciding);
  const decideError = useCockpit((s) => s.approvals.decideError);
  const { decideApproval } = useCockpitActions();
  const [active, ...rest] = pending;

  return (
    <section className="page page--review" aria-labelledby="page-Review">
      <header className="review-header">
        <div>
          <h1 id="page-Review">Review</h1>
          <p className="page__lead">One decision at a time, oldest first. Each approval is signed with your owner key.</p>
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
        <ApprovalCard
          key={active.id}
          card={active}
          busy={deciding !== null}
          error={decideError?.id === active.id ? decideError.message : null}
          onDecide={(decision) => decideApproval(active.id, decision)}
        />
      ) : (
        <EmptyState loading={status === 'loading'} />
      )}
      <UpNext cards={rest} />
    </section>
  );
}
