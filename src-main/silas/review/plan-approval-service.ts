import { randomUUID } from 'node:crypto';
import type { AuditEventData } from '../../../src-shared/audit/events.js';
import { Emitter } from '../../../src-shared/emitter.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { PendingPlanApproval, PlanApprovalAnswer, PlanApprovalRequest } from '../../../src-shared/schemas/plan-approval.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { Notifier } from '../../app/types.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { planHash } from '../work/hashes.js';
import { planApprovalCard } from './plan-card.js';

interface Waiting {
  card: PendingPlanApproval;
  item: WorkItem;
  resolve(answer: PlanApprovalAnswer): void;
  timer: NodeJS.Timeout;
}

export interface PlanApprovalServiceDeps {
  audit: Pick<AuditLog, 'append'>;
  /** Mints the owner-signed token (ApprovalEngine.issueToken); the keyring-backed signer lives behind it. */
  issueToken(item: WorkItem): ApprovalToken;
  notifier: Notifier;
  /** Told whenever the queue changes (the cockpit's event, the tray count). */
  onChange(pending: PendingPlanApproval[]): void;
  /** The tray's "pause approvals": while paused, a plan is denied at once instead of queued. */
  isPaused?: () => boolean;
  now?: () => Date;
}

/** The card's risk on the cockpit's ladder and its rationale, from the same card the terminal shows (§0.5.2, §0.5.3). */
export function planCardFacts(item: WorkItem, hash: string): Pick<PendingPlanApproval, 'risk' | 'riskReasons' | 'rationale'> {
  const card = planApprovalCard(item, hash);
  return { risk: card.risk_level === 'irreversible' ? 'critical' : card.risk_level, riskReasons: card.risk_reasons, rationale: card.rationale };
}

/**
 * The person's side of a plan approval. `silas run` asks over the local socket; the card waits in
 * the cockpit's Review until the person approves (the runtime signs a token bound to the plan
 * hash), denies, or the request times out. Each step is in the audit chain before its answer.
 */
export class PlanApprovalService {
  private readonly waiting = new Map<string, Waiting>();
  private readonly changes = new Emitter();
  private readonly now: () => Date;

  constructor(private readonly deps: PlanApprovalServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  request(request: PlanApprovalRequest): Promise<PlanApprovalAnswer> {
    const { item } = request;
    // The card shows this runtime's hash of the plan it received, so what is signed is what is shown.
    const hash = planHash(item);
    if (hash !== request.planHash) {
      throw new SilasError(ErrorCode.InvalidArgs, `planHash: the plan hashes to ${hash.slice(0, 12)}…, not ${request.planHash.slice(0, 12)}…; re-read the plan file and ask again`);
    }
    if (this.deps.isPaused?.()) {
      this.deps.audit.append('silas.plan_approval.refused_paused', { work_item_id: item.id, plan_hash: hash });
      return Promise.resolve({ outcome: 'deny', reason: 'approvals are paused in the Silas control center' });
    }
    const requestedAt = this.now();
    const id = randomUUID();
    const { risk, riskReasons, rationale } = planCardFacts(item, hash);
    const card: PendingPlanApproval = {
      id,
      workItemId: item.id,
      type: item.type,
      title: item.title,
      planHash: hash,
      source: request.source,
      risk,
      riskReasons,
      rationale,
      body: item.body,
      budget: item.budget,
      verify: item.verify.map((check) => ({ name: check.name, run: check.run, network: check.network })),
      skills: [...item.skills],
      gates: item.gates.length,
      requestedAt: requestedAt.toISOString(),
      expiresAt: new Date(requestedAt.getTime() + request.timeoutMs).toISOString(),
    };
    this.deps.audit.append('silas.plan_approval.requested', { approval_id: id, work_item_id: item.id, plan_hash: hash, type: item.type, source: request.source });
    return new Promise<PlanApprovalAnswer>((resolve) => {
      const timer = setTimeout(() => this.finish(id, 'silas.plan_approval.timed_out', {}, { outcome: 'timeout' }), request.timeoutMs);
      timer.unref();
      this.waiting.set(id, { card, item, resolve, timer });
      this.changed();
      this.deps.notifier.notify({ title: `Approve plan "${item.title}"?`, body: `${riskReasons.join('; ')}. Plan ${hash.slice(0, 8)}.`, urgency: risk === 'high' ? 'critical' : 'normal' });
    });
  }

  decide(id: string, decision: 'approve' | 'deny'): { id: string; outcome: 'approved' | 'denied' } {
    const waiting = this.waiting.get(id);
    if (!waiting) throw new SilasError(ErrorCode.InvalidArgs, `no pending plan approval ${id}; it was already decided or it expired`);
    if (decision === 'deny') {
      this.finish(id, 'silas.plan_approval.denied', {}, { outcome: 'deny', reason: 'denied by the user in the control center' });
      return { id, outcome: 'denied' };
    }
    const token = this.deps.issueToken(waiting.item);
    this.finish(id, 'silas.plan_approval.approved', { token_id: token.token_id, expires_at: token.expires_at, key_fingerprint: token.key_fingerprint }, { outcome: 'approve', token });
    return { id, outcome: 'approved' };
  }

  list(): PendingPlanApproval[] {
    return [...this.waiting.values()].map((w) => w.card);
  }

  pendingCount(): number {
    return this.waiting.size;
  }

  subscribe(listener: () => void): () => void {
    return this.changes.subscribe(listener);
  }

  /** Shutdown: every open question is answered "no". */
  declineAll(reason: string): void {
    for (const id of [...this.waiting.keys()]) this.finish(id, 'silas.plan_approval.denied', { shutdown: true }, { outcome: 'deny', reason });
  }

  private finish(id: string, event: 'silas.plan_approval.approved' | 'silas.plan_approval.denied' | 'silas.plan_approval.timed_out', extra: Record<string, string | boolean>, answer: PlanApprovalAnswer): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    // `extra` differs per outcome; the catalogue checks it against `event` when appended.
    this.deps.audit.append(event, { approval_id: id, work_item_id: waiting.item.id, plan_hash: waiting.card.planHash, ...extra } as AuditEventData<typeof event>);
    clearTimeout(waiting.timer);
    this.waiting.delete(id);
    waiting.resolve(answer);
    this.changed();
  }

  private changed(): void {
    this.deps.onChange(this.list());
    this.changes.publish();
  }
}
