import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { countMediumOrHigher, isMediumOrHigher, needsDensityCue } from '../../../store/approval-queue.js';
import { reviewQueue, type ReviewEntry } from '../../../store/plans-slice.js';
import { ApprovalCard } from '../ApprovalCard/ApprovalCard.js';
import { NotificationToggle } from '../NotificationToggle/NotificationToggle.js';
import { PlanApprovalCard } from '../PlanApprovalCard/PlanApprovalCard.js';
import { planIntentLine } from '../plan-format.js';
import { intentLine, riskSummary } from '../review-format.js';
import { UpNext, type UpNextItem } from '../UpNext/UpNext.js';

function EmptyState({ loading }: { loading: boolean }) {
  if (loading) return <p className="review-empty">Loading the decision queue…</p>;
  return (
    <div className="review-empty">
      <p className="review-empty__title">No decisions waiting</p>
      <p>When a policy asks before an agent&apos;s tool call, or silas run asks you to approve a plan, the request appears here and waits for you.</p>
    </div>
  );
}

/**
 * §0.5.4: many medium+ decisions at once breed reflexive taps. Warn, loudly, but never slow
 * the person down — no waits, no disabled buttons. Tool calls and plans count alike.
 */
function DensityCue() {
  const approvals = useCockpit((s) => s.approvals.pending);
  const plans = useCockpit((s) => s.plans.pending);
  const all = [...approvals, ...plans];
  if (!needsDensityCue(all)) return null;
  const elevated = all.filter((card) => isMediumOrHigher(card.risk));
  return (
    <div role="status" className="notice review-density">
      <strong>{countMediumOrHigher(all)} approvals at medium risk or higher are waiting</strong> ({riskSummary(elevated)}). Take each one on its own
      merits.
    </div>
  );
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "1 decision waiting", or with both kinds "3 decisions waiting: 1 plan, 2 tool calls". */
function waitingText(tools: number, plans: number): string {
  const total = plural(tools + plans, 'decision');
  if (tools === 0 || plans === 0) return `${total} waiting`;
  return `${total} waiting: ${plural(plans, 'plan')}, ${plural(tools, 'tool call')}`;
}

function upNextItem(entry: ReviewEntry): UpNextItem {
  return entry.kind === 'plan'
    ? { key: `plan:${entry.card.id}`, intent: planIntentLine(entry.card), risk: entry.card.risk }
    : { key: `tool:${entry.card.id}`, intent: intentLine(entry.card), risk: entry.card.risk };
}

/**
 * The Review surface (spec 002 §0.5.1): one active card, the rest stacked below. Tool-call
 * approvals and plan approvals share one queue, oldest request first (see `reviewQueue`).
 */
export function ReviewPage() {
  const approvals = useCockpit((s) => s.approvals.pending);
  const plans = useCockpit((s) => s.plans.pending);
  const paused = useCockpit((s) => s.approvals.paused);
  const loading = useCockpit((s) => s.approvals.status === 'loading' || s.plans.status === 'loading');
  const error = useCockpit((s) => s.approvals.error);
  const plansError = useCockpit((s) => s.plans.error);
  const busy = useCockpit((s) => s.approvals.deciding !== null || s.plans.deciding !== null);
  const decideError = useCockpit((s) => s.approvals.decideError);
  const planDecideError = useCockpit((s) => s.plans.decideError);
  const { decideApproval, decidePlan } = useCockpitActions();
  const [active, ...rest] = reviewQueue(approvals, plans);
  const activeTool = active?.kind === 'tool' ? active.card.id : null;
  const activePlan = active?.kind === 'plan' ? active.card.id : null;

  return (
    <section className="page page--review" aria-labelledby="page-Review">
      <header className="review-header">
        <div>
          <h1 id="page-Review">Review</h1>
          <p className="page__lead">One decision at a time, oldest first. Each approval is signed with your owner key.</p>
          {active ? <p className="review-note">{waitingText(approvals.length, plans.length)}</p> : null}
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
      {plansError ? (
        <p role="alert" className="notice notice--error">
          Could not load the plan approvals: {plansError}
        </p>
      ) : null}
      {decideError && decideError.id !== activeTool ? (
        <p role="alert" className="notice notice--error">
          Could not send your decision: {decideError.message}
        </p>
      ) : null}
      {planDecideError && planDecideError.id !== activePlan ? (
        <p role="alert" className="notice notice--error">
          Could not send your decision on the plan: {planDecideError.message}
        </p>
      ) : null}
      {active?.kind === 'plan' ? (
        <PlanApprovalCard
          key={`plan:${active.card.id}`}
          card={active.card}
          busy={busy}
          error={planDecideError?.id === active.card.id ? planDecideError.message : null}
          onDecide={(decision) => decidePlan(active.card.id, decision)}
        />
      ) : active?.kind === 'tool' ? (
        <ApprovalCard
          key={`tool:${active.card.id}`}
          card={active.card}
          busy={busy}
          error={decideError?.id === active.card.id ? decideError.message : null}
          onDecide={(decision) => decideApproval(active.card.id, decision)}
        />
      ) : (
        <EmptyState loading={loading} />
      )}
      <UpNext items={rest.map(upNextItem)} />
    </section>
  );
}
