import type { ApprovalAnswer, PendingApproval, ToolCallApprovalRequest } from '../../src-shared/schemas/approval.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { Notifier } from '../app/types.js';
import { DecisionQueue } from '../review/decision-queue.js';
import { toolCallKind, type ToolCallChoice, type ToolCallKind } from '../review/kinds/tool-call.js';
import type { StandingApprovalService } from './standing-service.js';

export { APPROVAL_TOKEN_TTL_MS, riskOf } from '../review/kinds/tool-call.js';

export type ApprovalServiceDeps = {
  audit: AuditLog;
  /** Where "always allow" goes; without it that choice is refused. */
  standing?: Pick<StandingApprovalService, 'create'>;
  signer: OwnerSigner;
  /** Told whenever tool-call cards or the pause change (the cockpit's event). */
  onChange(pending: PendingApproval[], paused: boolean): void;
  now?: () => Date;
} & ({ /** The runtime's one queue, shared with every other kind. */ queue: DecisionQueue } | { /** A queue of its own (tests). */ notifier: Notifier });

/**
 * Tool-call approvals as the handlers see them: the tool-call kind on the decision queue
 * (src-main/review/). Every step is audited before it takes effect; see the kind for the signing.
 */
export class ApprovalService {
  readonly queue: DecisionQueue;
  private readonly kind: ToolCallKind;

  constructor(deps: ApprovalServiceDeps) {
    this.queue = 'queue' in deps ? deps.queue : new DecisionQueue({ audit: deps.audit, notifier: deps.notifier, ...(deps.now ? { now: deps.now } : {}) });
    this.kind = toolCallKind(deps);
    this.queue.subscribe(({ kind }) => {
      if (kind === null || kind === this.kind.name) deps.onChange(this.list(), this.queue.isPaused());
    });
  }

  request(request: ToolCallApprovalRequest): Promise<ApprovalAnswer> {
    return this.queue.ask(this.kind, request);
  }

  decide(id: string, decision: ToolCallChoice): { id: string; outcome: 'approved' | 'denied' } {
    return this.queue.decide(this.kind, id, decision);
  }

  list(): PendingApproval[] {
    return this.queue.list(this.kind);
  }

  /** Shutdown: every open tool-call question is answered "no" (spec 002 §18.2 step 2). */
  declineAll(reason: string): void {
    this.queue.declineAll(reason, this.kind.name);
  }

  pendingCount(): number {
    return this.queue.pendingCount(this.kind.name);
  }

  isPaused(): boolean {
    return this.queue.isPaused();
  }

  setPaused(paused: boolean): void {
    this.queue.setPaused(paused);
  }
}
