import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { PendingPlanApproval, PlanApprovalAnswer, PlanApprovalRequest } from '../../../src-shared/schemas/plan-approval.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { planHash } from '../../silas/work/hashes.js';
import { planApprovalCard } from '../../silas/review/plan-card.js';
import type { DecisionKind } from '../decision-queue.js';

/** The card's risk on the cockpit's ladder and its rationale, from the same card the terminal shows (§0.5.2, §0.5.3). */
export function planCardFacts(item: WorkItem, hash: string): Pick<PendingPlanApproval, 'risk' | 'riskReasons' | 'rationale'> {
  const card = planApprovalCard(item, hash);
  return { risk: card.risk_level === 'irreversible' ? 'critical' : card.risk_level, riskReasons: card.risk_reasons, rationale: card.rationale };
}

/** What is decided: one plan, bound to this runtime's hash of it. */
export interface PlanSubject {
  item: WorkItem;
  hash: string;
  source: string;
}

export type PlanChoice = 'approve' | 'deny';
export type PlanKind = DecisionKind<PlanApprovalRequest, PlanSubject, PendingPlanApproval, PlanApprovalAnswer, PlanChoice>;

export interface PlanKindDeps {
  audit: Pick<AuditLog, 'append'>;
  /** Mints the owner-signed token (ApprovalEngine.issueToken); the keyring-backed signer lives behind it. */
  issueToken(item: WorkItem): ApprovalToken;
}

export const PLAN_KIND = 'plan';

/** A plan `silas run` asks about: approving issues a token bound to the plan hash. */
export function planKind(deps: PlanKindDeps): PlanKind {
  const { audit } = deps;
  const ended = ({ item, hash }: PlanSubject, id: string) => ({ approval_id: id, work_item_id: item.id, plan_hash: hash });
  return {
    name: PLAN_KIND,
    noun: 'plan approval',
    subject(request) {
      const { item } = request;
      // The card shows this runtime's hash of the plan it received, so what is signed is what is shown.
      const hash = planHash(item);
      if (hash !== request.planHash) {
        throw new SilasError(ErrorCode.InvalidArgs, `planHash: the plan hashes to ${hash.slice(0, 12)}…, not ${request.planHash.slice(0, 12)}…; re-read the plan file and ask again`);
      }
      return { subject: { item, hash, source: request.source }, timeoutMs: request.timeoutMs };
    },
    card(id, { item, hash, source }, requestedAt, expiresAt) {
      const { risk, riskReasons, rationale } = planCardFacts(item, hash);
      return {
        id,
        workItemId: item.id,
        type: item.type,
        title: item.title,
        planHash: hash,
        source,
        risk,
        riskReasons,
        rationale,
        body: item.body,
        budget: item.budget,
        verify: item.verify.map((check) => ({ name: check.name, run: check.run, network: check.network })),
        skills: [...item.skills],
        gates: item.gates.length,
        requestedAt: requestedAt.toISOString(),
        expiresAt: expiresAt.toISOString(),
      };
    },
    notification(card, { item, hash }) {
      return { title: `Approve plan "${item.title}"?`, body: `${card.riskReasons.join('; ')}. Plan ${hash.slice(0, 8)}.`, urgency: card.risk === 'high' ? 'critical' : 'normal' };
    },
    requested(id, { item, hash, source }) {
      audit.append('silas.plan_approval.requested', { approval_id: id, work_item_id: item.id, plan_hash: hash, type: item.type, source });
    },
    refusedPaused({ item, hash }) {
      audit.append('silas.plan_approval.refused_paused', { work_item_id: item.id, plan_hash: hash });
    },
    expired(id, subject) {
      audit.append('silas.plan_approval.timed_out', ended(subject, id));
    },
    denied(id, subject, shutdown) {
      audit.append('silas.plan_approval.denied', { ...ended(subject, id), ...(shutdown ? { shutdown: true } : {}) });
    },
    approve(id, subject) {
      const token = deps.issueToken(subject.item);
      audit.append('silas.plan_approval.approved', { ...ended(subject, id), token_id: token.token_id, expires_at: token.expires_at, key_fingerprint: token.key_fingerprint });
      return { outcome: 'approve', token };
    },
  };
}
