import type { PendingPlanApproval, PlanApprovalAnswer, PlanApprovalRequest } from '../../../src-shared/schemas/plan-approval.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { Notifier } from '../../app/types.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { DecisionQueue } from '../../review/decision-queue.js';
import { planKind, type PlanChoice, type PlanKind } from '../../review/kinds/plan.js';

export { planCardFacts } from '../../review/kinds/plan.js';

export type PlanApprovalServiceDeps = {
  audit: Pick<AuditLog, 'append'>;
  /** Mints the owner-signed token (ApprovalEngine.issueToken); the keyring-backed signer lives behind it. */
  issueToken(item: WorkItem): ApprovalToken;
  /** Told whenever plan cards change (the cockpit's event). */
  onChange(pending: PendingPlanApproval[]): void;
} & (
  | { /** The runtime's one queue: its pause is the tray's "pause approvals". */ queue: DecisionQueue }
  | { /** A queue of its own (tests), paused while `isPaused` says so. */ notifier: Notifier; isPaused?: () => boolean; now?: () => Date }
);

/**
 * Plan approvals as the handlers see them: the plan kind on the decision queue (src-main/review/).
 * `silas run` asks over the local socket; the card waits in Review until the person approves (a
 * token bound to the plan hash), denies, or the request times out.
 */
export class PlanApprovalService {
  readonly queue: DecisionQueue;
  private readonly kind: PlanKind;

  constructor(deps: PlanApprovalServiceDeps) {
    this.queue =
      'queue' in deps
        ? deps.queue
        : new DecisionQueue({ audit: deps.audit, notifier: deps.notifier, ...(deps.now ? { now: deps.now } : {}), ...(deps.isPaused ? { pausedElsewhere: deps.isPaused } : {}) });
    this.kind = planKind(deps);
    this.queue.subscribe(({ kind }) => {
      if (kind === this.kind.name) deps.onChange(this.list());
    });
  }

  request(request: PlanApprovalRequest): Promise<PlanApprovalAnswer> {
    return this.queue.ask(this.kind, request);
  }

  decide(id: string, decision: PlanChoice): { id: string; outcome: 'approved' | 'denied' } {
    return this.queue.decide(this.kind, id, decision);
  }

  list(): PendingPlanApproval[] {
    return this.queue.list(this.kind);
  }

  pendingCount(): number {
    return this.queue.pendingCount(this.kind.name);
  }

  /** Shutdown: every open plan question is answered "no". */
  declineAll(reason: string): void {
    this.queue.declineAll(reason, this.kind.name);
  }
}
