import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { PlanApprovalRequest } from '../../../src-shared/schemas/plan-approval.js';
import { orderActions } from '../../../src-shared/review/cta.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { planHash } from '../../silas/work/hashes.js';
import { planIdConflict, planIdRefusal, type PlanIdLookup } from '../../silas/store/plan-ids.js';
import { planApprovalCard } from './plan-card.js';
import type { DecisionKind } from '../decision-queue.js';

const APPROVE = {
  choice: 'approve',
  label: 'Approve and sign',
  consequence: 'Signs this exact plan with your owner key; it runs once in a sandbox and only its checks decide success',
};
const DENY = { choice: 'deny', label: 'Deny', consequence: 'Nothing runs' };

/** What is decided: one plan, bound to this runtime's hash of it. */
interface PlanSubject {
  item: WorkItem;
  hash: string;
  source: string;
}

export type PlanKind = DecisionKind<PlanApprovalRequest, PlanSubject, 'plan'>;

export interface PlanKindDeps {
  audit: Pick<AuditLog, 'append'>;
  /** Mints the owner-signed token (ApprovalEngine.issueToken); the keyring-backed signer lives behind it. */
  issueToken(item: WorkItem): ApprovalToken;
  /** The work items stored in this home: a plan whose id already ran to done is refused before a card is queued. */
  planIds: PlanIdLookup;
}

const PLAN_KIND = 'plan' as const;

/** A plan `silas run` or the Stream asks about: approving issues a token bound to the plan hash. */
export function planKind(deps: PlanKindDeps): PlanKind {
  const { audit } = deps;
  const ended = ({ item, hash }: PlanSubject, id: string) => ({ approval_id: id, work_item_id: item.id, plan_hash: hash });
  return {
    name: PLAN_KIND,
    noun: 'plan approval',
    decline: DENY.choice,
    subject(request) {
      const { item } = request;
      // The card shows this runtime's hash of the plan it received, so what is signed is what is shown.
      const hash = planHash(item);
      if (hash !== request.planHash) {
        throw new SilasError(ErrorCode.InvalidArgs, `planHash: the plan hashes to ${hash.slice(0, 12)}…, not ${request.planHash.slice(0, 12)}…; re-read the plan file and ask again`);
      }
      // A card whose signature could never be used is not offered (spec 002 §0.5.4): the executor
      // would refuse the plan after the person signed it (silas/store/plan-ids.ts).
      const conflict = planIdConflict(item, deps.planIds);
      if (conflict) {
        const reason = planIdRefusal(conflict);
        audit.append('silas.plan_approval.refused_unrunnable', { work_item_id: item.id, plan_hash: hash, reason: reason.slice(0, 1000) });
        throw new SilasError(ErrorCode.Conflict, `item.id: ${reason}`);
      }
      return { subject: { item, hash, source: request.source }, timeoutMs: request.timeoutMs };
    },
    card(id, { item, hash, source }, requestedAt, expiresAt) {
      // The same card the terminal shows (`silas run --approve-here`): one risk rule for both.
      const facts = planApprovalCard(item, hash);
      return {
        kind: PLAN_KIND,
        id,
        intent: `Run plan: ${item.title} (${item.type})`,
        riskLevel: facts.risk_level,
        riskReasons: facts.risk_reasons,
        rationale: facts.rationale,
        actions: orderActions(facts.risk_level, [APPROVE], DENY),
        details: {
          workItemId: item.id,
          type: item.type,
          title: item.title,
          planHash: hash,
          source,
          body: item.body,
          budget: item.budget,
          verify: item.verify.map((check) => ({ name: check.name, run: check.run, network: check.network })),
          skills: [...item.skills],
          gates: item.gates.length,
        },
        requestedAt: requestedAt.toISOString(),
        expiresAt: expiresAt.toISOString(),
        // Written on the card so the desktop shell and the browser say the same words.
        notification: { title: `Approve plan "${item.title}"?`.slice(0, 300), body: `${facts.risk_reasons.join('; ')}. Plan ${hash.slice(0, 8)}.`.slice(0, 1000) },
      };
    },
    notification(card) {
      return { ...card.notification!, urgency: card.riskLevel === 'low' || card.riskLevel === 'medium' ? 'normal' : 'critical' };
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
    withdrawn(id, subject, reason) {
      audit.append('silas.plan_approval.withdrawn', { ...ended(subject, id), reason });
    },
    approve(id, subject) {
      const token = deps.issueToken(subject.item);
      audit.append('silas.plan_approval.approved', { ...ended(subject, id), token_id: token.token_id, expires_at: token.expires_at, key_fingerprint: token.key_fingerprint });
      return { outcome: 'approve', token };
    },
  };
}
